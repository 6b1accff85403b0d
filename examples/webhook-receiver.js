#!/usr/bin/env node
// A webhook receiver for trying the API on your machine (docs/getting-started.md). It listens on the address
// given (default 127.0.0.1:4000), checks each delivery's v1 signature with POP_SIGNING_SECRET (the
// subscription's signingSecret) by the verifier of docs/webhooks.md, "By hand (Node.js)", below as the page
// has it, answers 204 (400 when the check fails) and prints one line per delivery. Node alone: nothing to install.
const crypto = require('node:crypto');

const TOLERANCE_SECONDS = 5 * 60;

/** rawBody: the Buffer exactly as received; headers: lower-case names (Node's req.headers). */
function verifyWebhook(rawBody, headers, signingSecret) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatureHeader = headers['webhook-signature'];
  if (!id || !timestamp || !signatureHeader) throw new Error('missing webhook headers');
  if (!/^\d+$/.test(timestamp) || Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new Error('webhook-timestamp outside the 5-minute tolerance');
  }
  // The key is the secret string's bytes exactly as the API returned it (not base64-decoded).
  const expected = crypto
    .createHmac('sha256', Buffer.from(signingSecret, 'utf8'))
    .update(`${id}.${timestamp}.`, 'utf8')
    .update(rawBody) // the raw Buffer as received, never a re-serialisation
    .digest();
  const matches = signatureHeader.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) throw new Error('no matching webhook signature');
  return JSON.parse(rawBody.toString('utf8'));
}

const http = require('node:http');

const secret = process.env.POP_SIGNING_SECRET;
if (!secret) {
  console.error("Set POP_SIGNING_SECRET to the subscription's signingSecret (POST /v1/webhooks shows it once).");
  process.exit(1);
}
const [host, port] = (process.argv[2] ?? '127.0.0.1:4000').split(':');

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      try {
        const envelope = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
        res.writeHead(204).end();
        const marks = [envelope.test ? 'test event' : '', req.headers['x-test-mode'] === 'true' ? 'X-Test-Mode: true' : ''].filter(Boolean);
        console.log(`verified ${envelope.eventName} ${id}${marks.length ? ` (${marks.join(', ')})` : ''}`);
      } catch (error) {
        res.writeHead(400).end();
        console.log(`refused ${id ?? 'a request'}: ${error.message}`);
      }
    });
  })
  .listen(Number(port), host, () => console.log(`Listening on http://${host}:${port}/, verifying signatures with POP_SIGNING_SECRET`));
