import { subscribe } from 'node:diagnostics_channel';
import { isIP, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * Where the time of one outbound request went, and which address it reached, read from undici's public
 * diagnostics channels (`undici:request:create`, `undici:client:sendHeaders`, `undici:request:headers`)
 * and from the socket events of a connection the agent's connector opens (`lookup`, `connect`,
 * `secureConnect`). No per-request statement, timer or header: a trace is a few timestamps.
 *
 * undici creates its request object, and opens a new connection when the pool has none idle,
 * synchronously inside `agent.request()`: `RequestTrace.during(trace, () => agent.request(…))` ties both
 * to the trace. A request that reuses a kept-alive connection has no connection phases (null).
 */
export interface ConnectionPhases {
  /** The connector started opening the socket (performance.now()). */
  startedAt: number;
  /** The host name was resolved (a literal IP address has no lookup). */
  lookedUpAt?: number;
  /** The address the lookup gave, or the literal address connected to. */
  address?: string;
  /** TCP connected. */
  connectedAt?: number;
  /** TLS handshake done (https only). */
  secureAt?: number;
  tls: boolean;
}

export class RequestTrace {
  readonly startedAt = performance.now();
  /** The connection opened for this request; undefined when it reused a kept-alive one. */
  connection?: ConnectionPhases;
  /** The peer address of the socket that carried the request (once its headers were sent). */
  remoteAddress?: string;
  /** Response headers arrived (the first byte of the answer). */
  firstByteAt?: number;

  /** Runs `dispatch` (which must call the agent synchronously) with this trace attached to what undici creates in it. */
  static during<T>(trace: RequestTrace, dispatch: () => T): T {
    const outer = current;
    current = trace;
    try {
      return dispatch();
    } finally {
      current = outer;
    }
  }

  /** The address this request reached or was trying to reach: the socket's peer, else the connection's lookup. */
  get address(): string | null {
    return this.remoteAddress ?? this.connection?.address ?? null;
  }
}

/** The trace of the request being dispatched right now (set only inside RequestTrace.during). */
let current: RequestTrace | undefined;
/** undici request object → its trace. */
const traces = new WeakMap<object, RequestTrace>();
/** Sockets opened by a traced request, until a request is sent over them. */
const fresh = new WeakMap<Socket, ConnectionPhases>();

/**
 * Called by the agent's connector with the socket it just opened (synchronously within the dispatch of
 * the request that needs it): records the connection's phases on the current trace.
 */
export function traceConnection(socket: Socket, protocol: string, hostname: string): void {
  const trace = current;
  if (!trace) return;
  const phases: ConnectionPhases = { startedAt: performance.now(), tls: protocol === 'https:' };
  if (isIP(hostname) !== 0) phases.address = hostname;
  trace.connection = phases;
  fresh.set(socket, phases);
  socket.once('lookup', (error: Error | null, address: string) => {
    phases.lookedUpAt = performance.now();
    if (!error && typeof address === 'string') phases.address = address;
  });
  socket.once('connect', () => {
    phases.connectedAt = performance.now();
    if (socket.remoteAddress) phases.address = socket.remoteAddress;
  });
  if (phases.tls) socket.once('secureConnect', () => (phases.secureAt = performance.now()));
}

subscribe('undici:request:create', (message) => {
  if (current) traces.set((message as { request: object }).request, current);
});

subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: object; socket: Socket };
  const trace = traces.get(request);
  if (!trace) return;
  trace.remoteAddress = socket.remoteAddress ?? trace.connection?.address;
  // A request dispatched while another one opened the connection it ends up on: no phases of its own.
  if (trace.connection && fresh.get(socket) !== trace.connection) trace.connection = undefined;
  fresh.delete(socket);
});

subscribe('undici:request:headers', (message) => {
  const trace = traces.get((message as { request: object }).request);
  if (trace && trace.firstByteAt === undefined) trace.firstByteAt = performance.now();
});

/** Milliseconds of each phase of a traced request, rounded to 0.1 ms; null for a phase it did not go through. */
export interface RequestTimings {
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  firstByteMs: number | null;
  totalMs: number;
}

/**
 * The phases of a finished trace: `dnsMs` the connection's lookup (`extraDnsMs` adds a resolution done
 * before the request, such as a URL check), `connectMs` TCP, `tlsMs` the handshake, `firstByteMs` from
 * the request's start to the response headers, `totalMs` to `endedAt`.
 */
export function timingsOf(trace: RequestTrace, endedAt: number, extraDnsMs: number | null = null): RequestTimings {
  const c = trace.connection;
  const connectStart = c ? (c.lookedUpAt ?? c.startedAt) : undefined;
  const lookup = c?.lookedUpAt !== undefined ? c.lookedUpAt - c.startedAt : null;
  const dnsMs = lookup === null && extraDnsMs === null ? null : (lookup ?? 0) + (extraDnsMs ?? 0);
  return {
    dnsMs: round(dnsMs),
    connectMs: round(c?.connectedAt !== undefined && connectStart !== undefined ? c.connectedAt - connectStart : null),
    tlsMs: round(c?.secureAt !== undefined && c.connectedAt !== undefined ? c.secureAt - c.connectedAt : null),
    firstByteMs: round(trace.firstByteAt !== undefined ? trace.firstByteAt - trace.startedAt : null),
    totalMs: round(endedAt - trace.startedAt)!,
  };
}

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(Math.max(0, ms) * 10) / 10;
}
