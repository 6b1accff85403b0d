import forge from 'node-forge';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * Certificates for mTLS tests, made here (node-forge builds and signs X.509; node:crypto makes the RSA
 * keys, faster than forge's pure-JS generation): a CA, certificates it signs, with the validity asked.
 */
export interface Issued {
  cert: string;
  key: string;
}

function rsaKeys(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKey: forge.pki.privateKeyFromPem(privateKey), publicKey: forge.pki.publicKeyFromPem(publicKey), pem: privateKey };
}

function build(
  commonName: string,
  issuer: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } | null,
  options: { notBefore?: Date; notAfter?: Date; ca?: boolean; ip?: string },
): Issued & { forgeCert: forge.pki.Certificate; forgeKey: forge.pki.rsa.PrivateKey } {
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // A positive DER integer without leading zero bytes (01 first), unique per certificate.
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 24 * 3600_000);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Receiver Auth Tests' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : subject);
  const extensions: unknown[] = [{ name: 'basicConstraints', cA: !!options.ca }];
  if (options.ca) extensions.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true });
  else extensions.push({ name: 'extKeyUsage', serverAuth: true, clientAuth: true });
  if (options.ip) extensions.push({ name: 'subjectAltName', altNames: [{ type: 7, ip: options.ip }] });
  cert.setExtensions(extensions as never);
  cert.sign(issuer ? issuer.key : keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.pem, forgeCert: cert, forgeKey: keys.privateKey };
}

/** A certificate authority that issues server and client certificates. */
export interface TestCa extends Issued {
  issue(commonName: string, options?: { notBefore?: Date; notAfter?: Date; ip?: string }): Issued;
}

export function testCa(name: string): TestCa {
  const ca = build(name, null, { ca: true });
  return {
    cert: ca.cert,
    key: ca.key,
    issue: (commonName, options = {}) => {
      const { cert, key } = build(commonName, { cert: ca.forgeCert, key: ca.forgeKey }, options);
      return { cert, key };
    },
  };
}
