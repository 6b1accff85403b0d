import autocannon from 'autocannon';

/*
 * The load generator, run as its own process (so its CPU is not the driver's or the server's):
 * `node load-child.js '<LoadSpec JSON>'` runs autocannon and prints a LoadResult as JSON.
 */
export interface LoadSpec {
  origin: string;
  /** One path, or several to pick from at random per request (e.g. property ids). */
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** Requests per second across all connections; unset = as fast as the server answers. */
  overallRate?: number;
  /**
   * POST this JSON body instead of a GET; each `{{n}}` in it becomes a string unique to the request
   * (the process, the start time and a counter), for creates whose client ids must not repeat.
   */
  postBody?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyMs: { p50: number; p99: number };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2]) as LoadSpec;
  const pick = () => spec.paths[Math.floor(Math.random() * spec.paths.length)];
  const unique = `${process.pid}-${Date.now()}`;
  let n = 0;
  const { postBody } = spec;
  const request: autocannon.Request = postBody
    ? {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          path: pick(),
          headers: { ...req.headers, 'content-type': 'application/json' },
          body: postBody.replaceAll('{{n}}', `${unique}-${n++}`),
        }),
      }
    : { method: 'GET', setupRequest: (req) => ({ ...req, path: pick() }) };
  const result = await autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.seconds,
    headers: spec.headers,
    overallRate: spec.overallRate,
    requests: [request],
  });
  const output: LoadResult = {
    requestsPerSecond: result.requests.total / spec.seconds,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
  };
  process.stdout.write(JSON.stringify(output));
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
