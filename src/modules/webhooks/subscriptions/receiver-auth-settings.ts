import { Injectable } from '@nestjs/common';
import { ValidationError } from '../../../platform/errors/domain-error';
import { OutboundUrlPolicy } from '../../../platform/net/outbound-url-policy';
import { URL_MAX_LENGTH, UrlPolicyError, urlTooLongMessage } from '../../../platform/net/url-policy.rules';
import { SecretBox } from '../../../platform/secrets/secret-box';
import { TokenUrlError } from '../webhooks.errors';
import {
  headersNameAuthorization,
  OAuth2AuthMethod,
  receiverAuthContext,
  StoredReceiverAuth,
  withReceiverAuth,
} from '../receiver-auth.rules';
import { checkMtls, MtlsInput, StoredMtls } from '../receiver-mtls.rules';

/** Receiver authentication as create and PATCH take it (validated by the DTOs); null removes an option (PATCH). */
export interface ReceiverAuthInput {
  headers?: Record<string, string> | null;
  oauth2?: {
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    scope?: string;
    audience?: string;
    authMethod?: OAuth2AuthMethod;
  } | null;
  mtls?: MtlsInput | null;
}

/**
 * The API side of receiver authentication (issue 42): checks what needs DNS (the token endpoint obeys
 * the url's rules) and seals the secrets for the `receiver_auth` column. Runs before the transaction
 * opens (a slow resolver must not hold a connection); `apply` merges under the row lock.
 */
@Injectable()
export class ReceiverAuthSettings {
  constructor(
    private readonly secrets: SecretBox,
    private readonly urlPolicy: OutboundUrlPolicy,
  ) {}

  /** The options given, checked and sealed for subscription `id` (undefined: not given; null: remove). */
  async sealed(id: string, input: ReceiverAuthInput): Promise<Partial<StoredReceiverAuthChanges>> {
    const changes: Partial<StoredReceiverAuthChanges> = {};
    if (input.headers !== undefined) {
      changes.headers =
        input.headers === null
          ? null
          : {
              names: Object.keys(input.headers),
              sealed: this.secrets.seal(JSON.stringify(input.headers), receiverAuthContext(id, 'headers')),
            };
    }
    if (input.oauth2 !== undefined) {
      if (input.oauth2 === null) changes.oauth2 = null;
      else {
        const { tokenUrl, clientId, clientSecret, scope, audience, authMethod } = input.oauth2;
        changes.oauth2 = {
          tokenUrl: await this.checkedTokenUrl(tokenUrl),
          clientId,
          ...(scope === undefined ? {} : { scope }),
          ...(audience === undefined ? {} : { audience }),
          authMethod: authMethod ?? 'clientSecretBasic',
          clientSecret: this.secrets.seal(clientSecret, receiverAuthContext(id, 'oauth2')),
        };
      }
    }
    if (input.mtls !== undefined) changes.mtls = input.mtls === null ? null : this.sealedMtls(id, input.mtls);
    return changes;
  }

  /** mTLS checked (400 naming the field: mtls.clientCertificate, mtls.clientKey, mtls.serverCaCertificate), its key sealed. */
  private sealedMtls(id: string, input: MtlsInput): StoredMtls {
    const checked = checkMtls(input, new Date());
    if ('field' in checked) throw ValidationError.field(`#/mtls/${checked.field}`, `mtls.${checked.field} ${checked.message}`);
    return {
      clientCertificate: input.clientCertificate,
      clientKey: this.secrets.seal(input.clientKey, receiverAuthContext(id, 'mtls')),
      ...(input.serverCaCertificate === undefined ? {} : { serverCaCertificate: input.serverCaCertificate }),
      certificateSubject: checked.subject,
      certificateExpiresAt: checked.expiresAt.toISOString(),
    };
  }

  /**
   * The column after `changes` (PATCH replaces each option given, null removes it). Custom headers may not
   * name Authorization while an OAuth2 token sets it.
   */
  apply(current: StoredReceiverAuth | null | undefined, changes: Partial<StoredReceiverAuthChanges>): StoredReceiverAuth | null {
    const next = withReceiverAuth(current, changes);
    if (next?.oauth2 && next.headers && headersNameAuthorization(next.headers.names)) {
      throw ValidationError.field('#/headers', 'headers: header "Authorization" is set by oauth2 and cannot be sent beside it');
    }
    return next;
  }

  /** The token endpoint under the url's rules (https, public addresses; the development exceptions as for url). */
  private async checkedTokenUrl(raw: string): Promise<string> {
    try {
      const url = (await this.urlPolicy.check(raw, { requireHttps: true })).url.toString();
      if (url.length > URL_MAX_LENGTH) throw new TokenUrlError(urlTooLongMessage(URL_MAX_LENGTH));
      return url;
    } catch (error) {
      if (error instanceof UrlPolicyError) throw new TokenUrlError(error.message);
      throw error;
    }
  }
}

/** What `sealed` returns per option: the stored value, or null to remove it. */
export type StoredReceiverAuthChanges = { [K in keyof StoredReceiverAuth]-?: StoredReceiverAuth[K] | null };
