import { Pool } from 'undici';
import { signPayload } from '../../src/modules/webhooks/webhook-signer.rules';

/*
 * S5's second ceiling: an undici pool posting the same signed payloads straight to the receiver,
 * as many as the fan-out delivers, at the worker's delivery concurrency, each signed as a delivery
 * is (Standard Webhooks HMAC over id, timestamp and body). Prints {posts, perSecond}.
 * `node undici-post.js '{"receiver":"http://...","path":"/x","posts":N,"concurrency":C,"body":"..."}'`
 */
interface Input {
  receiver: string;
  path: string;
  posts: number;
  concurrency: number;
  body: string;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2]) as Input;
  const pool = new Pool(input.receiver, { connections: input.concurrency });
  const secret = 'whsec_bench-baseline-secret';
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < input.posts) {
        const deliveryId = `whd_baseline_${process.pid}_${next++}`;
        const timestamp = Math.floor(Date.now() / 1000);
        const res = await pool.request({
          method: 'POST',
          path: input.path,
          headers: {
            'content-type': 'application/json',
            'webhook-id': deliveryId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signPayload({ deliveryId, timestamp, body: input.body, secrets: [secret] }),
          },
          body: input.body,
        });
        await res.body.dump();
        if (res.statusCode !== 204) throw new Error(`receiver answered ${res.statusCode}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  process.stdout.write(JSON.stringify({ posts: input.posts, perSecond: input.posts / seconds }));
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
