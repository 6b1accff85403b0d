import { createServer } from 'node:http';

/*
 * A local OTLP/HTTP collector stand-in for the traced scenarios (S2T, S5T), its own process: takes every
 * export (POST /v1/traces, protobuf or JSON), counts it and its bytes, answers 200 at once and keeps
 * nothing. `GET /__stats` reports the counts. `node otlp-sink.js <port>`
 */
let received = 0;
let bytes = 0;

const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports: received, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    received++;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2]), '127.0.0.1');
