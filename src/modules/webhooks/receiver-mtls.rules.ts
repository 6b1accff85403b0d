import { createPrivateKey, X509Certificate } from 'node:crypto';

/**
 * Mutual TLS towards a receiver (issue 42, an extension): the client certificate and key a subscription
 * presents, and the one CA it trusts for the receiver (private PKI). Pure checks of the PEM a client
 * sends (node:crypto parses, nothing is fetched).
 */

/** PEM text accepted per field at most (a certificate chain of a few certificates). */
export const MTLS_PEM_MAX = 16 * 1024;

export interface MtlsInput {
  clientCertificate: string;
  clientKey: string;
  serverCaCertificate?: string;
}

/** The stored form (inside receiver_auth): the key sealed; subject and expiry kept for reads and the send step. */
export interface StoredMtls {
  clientCertificate: string;
  clientKey: string;
  serverCaCertificate?: string;
  certificateSubject: string;
  certificateExpiresAt: string;
}

/** How reads show mTLS: never the key nor the client certificate. */
export interface MtlsView {
  certificateSubject: string;
  certificateExpiresAt: string;
  serverCaCertificate?: string;
}

export type MtlsIssue = { field: keyof MtlsInput; message: string };

/**
 * The certificate's subject and expiry, or the field that is wrong: a certificate that does not parse or
 * has expired, a key that does not parse or does not match it, a CA that does not parse.
 */
export function checkMtls(input: MtlsInput, now: Date): { subject: string; expiresAt: Date } | MtlsIssue {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(input.clientCertificate);
  } catch {
    return { field: 'clientCertificate', message: 'is not a PEM X.509 certificate' };
  }
  const expiresAt = new Date(certificate.validTo);
  if (!(expiresAt.getTime() > now.getTime())) return { field: 'clientCertificate', message: `expired at ${expiresAt.toISOString()}` };
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(input.clientKey))) {
      return { field: 'clientKey', message: 'does not match clientCertificate' };
    }
  } catch {
    return { field: 'clientKey', message: 'is not a PEM private key (unencrypted)' };
  }
  if (input.serverCaCertificate !== undefined) {
    try {
      new X509Certificate(input.serverCaCertificate);
    } catch {
      return { field: 'serverCaCertificate', message: 'is not a PEM X.509 certificate' };
    }
  }
  return { subject: certificate.subject.split('\n').join(', '), expiresAt };
}

export function mtlsView(stored: StoredMtls): MtlsView {
  return {
    certificateSubject: stored.certificateSubject,
    certificateExpiresAt: stored.certificateExpiresAt,
    ...(stored.serverCaCertificate === undefined ? {} : { serverCaCertificate: stored.serverCaCertificate }),
  };
}

/** Whether the stored certificate has expired by `now` (an attempt then fails without a retry). */
export function mtlsExpired(stored: Pick<StoredMtls, 'certificateExpiresAt'>, now: Date): boolean {
  return Date.parse(stored.certificateExpiresAt) <= now.getTime();
}
