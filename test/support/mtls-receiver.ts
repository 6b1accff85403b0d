import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Issued } from './certificates';

/** A request that passed the TLS handshake: its headers and the client certificate's common name. */
export interface MtlsRequest {
  headers: Record<string, string | string[] | undefined>;
  clientName: string | undefined;
}

export interface MtlsReceiver {
  /** https://127.0.0.1:<port> (the server certificate names the IP). */
  url: string;
  requests: MtlsRequest[];
  /** TLS handshakes refused (a client certificate missing, or not from the trusted CA). */
  refused: number;
  close(): Promise<void>;
}

/** An HTTPS receiver on 127.0.0.1 that requires a client certificate issued by `clientCa`, answering 200. */
export async function startMtlsReceiver(server: Issued, clientCa: string): Promise<MtlsReceiver> {
  const requests: MtlsRequest[] = [];
  const state = { refused: 0 };
  const https: Server = createServer(
    { key: server.key, cert: server.cert, ca: [clientCa], requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      req.resume();
      req.on('end', () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        requests.push({ headers: req.headers, clientName: peer?.subject?.CN as string | undefined });
        res.writeHead(200).end('ok');
      });
    },
  );
  https.on('tlsClientError', () => (state.refused += 1));
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    get refused() {
      return state.refused;
    },
    close: () => {
      https.closeAllConnections();
      return new Promise((resolve) => https.close(() => resolve()));
    },
  };
}
