#!/usr/bin/env node
// `node scripts/profile-layers.js <api.cpuprofile> [cpu ms per request]`: the API's busy CPU in a bench
// profile (BENCH_CPU_PROF) by request-path layer, the table of docs/performance.md, "The request path, layer
// by layer". Each sample counts for the leaf-most frame that belongs to a layer, so Node's own work (socket
// writes, parsing) counts for the library that asked for it; what no library or code of ours asked for is
// Node's HTTP server. Start-up is left out: the window opens at the first sample inside Express's router.
const { readFileSync } = require('node:fs');

const QUEUE = 'idempotency, queue hand-over, events';
const LAYERS = [
  ['serialization (JSON.stringify, read-shape mapping)', (f, u) => (f === 'stringify' && !u) || /\.response\.js/.test(u)],
  ['problem documents (filter, renderer)', (f, u) => /dist\/platform\/http\/problem|domain-error/.test(u)],
  [
    'Redis client (the rate-limit script; S1: the health PING)',
    (f, u) => /node_modules\/(ioredis|redis-parser|denque|standard-as-callback)\/|rate-limit/.test(u),
  ],
  [
    'database client (pg, TypeORM, our Sql)',
    (f, u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|typeorm)\/|dist\/platform\/database/.test(u),
  ],
  ['key guard (hash, lookup call, caller)', (f, u) => /api-key\.guard|auth\.service|auth\.rules/.test(u)],
  [
    'validation (class-validator and -transformer, strict guard and pipe)',
    (f, u) =>
      /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|strict-validation|strict-request|validation-issues|dist\/platform\/http\/validators/.test(
        u,
      ),
  ],
  [
    'entry middleware (request id, route plan, JSON body)',
    (f, u) => /http-entry|route-plans|request-id|json-body|node_modules\/(body-parser|raw-body|iconv-lite|type-is)\//.test(u),
  ],
  [QUEUE, (f, u) => /idempotency|dist\/modules\/events/.test(u)],
  ['logging (pino)', (f, u) => /node_modules\/(pino|pino-http|nestjs-pino|sonic-boom|fast-redact)\//.test(u)],
  ['metrics (prom-client)', (f, u) => /node_modules\/prom-client\/|dist\/platform\/metrics/.test(u)],
  ['Nest pipeline (execution context, guard/interceptor/pipe consumers, rxjs)', (f, u) => /node_modules\/(@nestjs|rxjs)\//.test(u)],
  ['response write (Express res.send/json and its socket write)', (f, u) => /node_modules\/express\/lib\/response/.test(u)],
  [
    'Express routing (router, app.handle, request helpers)',
    (f, u) =>
      /node_modules\/(express|router|path-to-regexp|finalhandler|parseurl|proxy-addr|ipaddr\.js|qs|etag|fresh|send|on-finished)\//.test(u),
  ],
  ['handler and service (ours)', (f, u) => /\/dist\//.test(u)],
];
const NODE_HTTP = 'Node HTTP server (parsing, socket reads, timers)';

const [file, cpuMs] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/profile-layers.js <api.cpuprofile> [cpu ms per request]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const node = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
const frames = (id) => {
  const list = [];
  for (let cur = id; cur; cur = parent.get(cur)) list.push(node.get(cur).callFrame);
  return list;
};

function layerOf(id) {
  const stack = frames(id);
  // BullMQ runs on ioredis: its Redis work is the queue hand-over, not the rate limiter.
  if (stack.some((f) => /node_modules\/(bullmq|msgpackr)\/|dist\/platform\/queue/.test(f.url))) return QUEUE;
  for (const f of stack) for (const [name, test] of LAYERS) if (test(f.functionName, f.url)) return name;
  if (stack.some((f) => f.url.startsWith('node:'))) return NODE_HTTP;
  const leaf = stack[0].functionName;
  return leaf === '(garbage collector)' ? 'garbage collection' : leaf === '(idle)' ? undefined : 'other (program, natives)';
}

const inRouter = (id) => frames(id).some((f) => /node_modules\/router\//.test(f.url));
const totals = new Map();
let busy = 0;
let open = false;
profile.samples.forEach((id, i) => {
  open ||= inRouter(id);
  const layer = open ? layerOf(id) : undefined;
  if (!layer) return;
  const t = profile.timeDeltas[i] ?? 0;
  busy += t;
  totals.set(layer, (totals.get(layer) ?? 0) + t);
});
process.stdout.write(`busy ${(busy / 1e6).toFixed(2)} s\n`);
for (const [layer, t] of [...totals].sort((a, b) => b[1] - a[1])) {
  const perRequest = cpuMs ? `${(((t / busy) * Number(cpuMs) * 1000) | 0).toString().padStart(6)} µs  ` : '';
  process.stdout.write(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${perRequest}${layer}\n`);
}
