import { randomUUID } from 'node:crypto';
import { validProperty } from './properties';
import { waitUntil } from './wait';

/** One answer the load got, kept to be checked afterwards. */
export interface Answer {
  key: string;
  status: number | 'no answer';
  contentType?: string | null;
  retryAfter?: string | null;
  body?: Record<string, any>;
  replayed?: boolean;
  /** Why there was no answer (the fetch's error and its cause). */
  error?: string;
  /** When it was sent, and how long the answer took (ms). */
  sentAt?: number;
  tookMs?: number;
}

/** One logical write: a property create, sent with its Idempotency-Key until it is acknowledged (2xx). */
export interface Write {
  key: string;
  answers: Answer[];
  /** The acknowledged property's id, once a 2xx came. */
  id?: string;
}

export interface IdempotentLoad {
  writes: Write[];
  answers: Answer[];
  /** Acknowledged writes so far. */
  acknowledged(): number;
  /** Stops starting writes and waits for every started one to be acknowledged. */
  finish(timeoutMs: number): Promise<void>;
  /** Stops starting writes (those under way go on): for a test that failed. */
  stop(): void;
  /** Answers by status, for a failure's message. */
  summary(): string;
}

/**
 * A steady stream of POST /v1/properties, one new write every `everyMs`, each with an Idempotency-Key,
 * as a careful client sends them: a 503, a 429 or a 409 idempotencyKeyInProgress is retried after its
 * Retry-After, with jitter (so the clients an outage held back do not all come back at once), always with
 * the same key and body, until a 2xx acknowledges it. Any other answer, or none (a network error, or
 * none within 30 s), is kept and ends that write (the test then fails on it).
 */
export function startIdempotentLoad(baseUrl: string, apiKey: string, everyMs: number): IdempotentLoad {
  const writes: Write[] = [];
  const answers: Answer[] = [];
  const running = new Set<Promise<void>>();

  const send = async (write: Write, body: string): Promise<void> => {
    for (;;) {
      let answer: Answer;
      const sentAt = Date.now();
      try {
        const res = await fetch(`${baseUrl}/v1/properties`, {
          method: 'POST',
          headers: {
            'x-api-key': apiKey,
            'idempotency-key': write.key,
            'content-type': 'application/json',
          },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        answer = {
          key: write.key,
          status: res.status,
          contentType: res.headers.get('content-type'),
          retryAfter: res.headers.get('retry-after'),
          body: text ? (JSON.parse(text) as Record<string, any>) : undefined,
          replayed: res.headers.get('idempotent-replayed') === 'true',
          sentAt,
          tookMs: Date.now() - sentAt,
        };
      } catch (error) {
        const cause = (error as Error & { cause?: Error }).cause;
        answer = {
          key: write.key,
          status: 'no answer',
          error: `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`,
          sentAt,
          tookMs: Date.now() - sentAt,
        };
      }
      write.answers.push(answer);
      answers.push(answer);
      if (typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300) {
        write.id ??= answer.body?.propertyId;
        return;
      }
      const retryable =
        answer.status === 503 || answer.status === 429 || (answer.status === 409 && answer.body?.code === 'idempotencyKeyInProgress');
      if (!retryable) return;
      const retryAfterMs = answer.retryAfter === null || answer.retryAfter === undefined ? NaN : Number(answer.retryAfter) * 1000;
      await delay((Number.isFinite(retryAfterMs) ? retryAfterMs : 1000) * (1 + Math.random() / 2));
    }
  };

  const timer = setInterval(() => {
    const write: Write = { key: randomUUID(), answers: [] };
    writes.push(write);
    const sending = send(write, JSON.stringify(validProperty()));
    running.add(sending);
    void sending.finally(() => running.delete(sending));
  }, everyMs);

  return {
    writes,
    answers,
    acknowledged: () => writes.filter((write) => write.id !== undefined).length,
    stop: () => clearInterval(timer),
    summary: () => {
      const counts = new Map<string, number>();
      for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
      const odd = answers.find((answer) => answer.status !== 201 && answer.status !== 503);
      return `${writes.length} writes, answers ${JSON.stringify(Object.fromEntries(counts))}${odd ? `, e.g. ${JSON.stringify(odd)}` : ''}`;
    },
    finish: async (timeoutMs) => {
      clearInterval(timer);
      await waitUntil(async () => running.size === 0, timeoutMs, `${running.size} writes to be acknowledged`, 100);
    },
  };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
