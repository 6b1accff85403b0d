import { STATUS_CODES, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { buildProblem } from './problem';
import { chooseRequestId } from './request-id';

/** What Node's HTTP parser rejects before any route runs, as Node itself would answer it. */
function classify(code: string | undefined): { status: number; code: string; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'headersTooLarge',
      detail: 'The request line and headers exceed the server limit (16 KB); send long values in the body',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'requestTimeout', detail: 'The request was not received in time' };
  return { status: 400, code: 'badRequest', detail: 'The request is not valid HTTP' };
}

/**
 * Requests Node's parser refuses (a request line or headers over the limit, malformed
 * HTTP) never reach Express; by default Node answers them with an empty body. Answer
 * with a problem document instead, so every error the API gives is one.
 */
export function answerClientErrorsWithProblems(server: Server, errorsBaseUrl: string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own handler: nothing can be written once a response on this socket has begun.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, code, detail } = classify(error.code);
    const requestId = chooseRequestId(undefined);
    const body = JSON.stringify(buildProblem(errorsBaseUrl, { status, code, detail, instance: '/', requestId }));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  });
}
