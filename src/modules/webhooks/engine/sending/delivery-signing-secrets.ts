import { Injectable, Logger } from '@nestjs/common';
import { KeyObject } from 'node:crypto';
import { boundedCache } from '../../../../platform/cache/bounded-cache';
import { SecretBox } from '../../../../platform/secrets/secret-box';
import { SecretBoxError } from '../../../../platform/secrets/secret-box.rules';
import { DeliveryRow } from '../../webhook-delivery.row';
import { signingKeyContext, signingKeyFrom, signingKeysOf, signingSecrets } from '../../webhook-signer.rules';

/** What signs a delivery: the v1 HMAC secrets and the v1a (extension) ed25519 keys, each newest first. */
export interface DeliverySigning {
  secrets: string[];
  signingKeys: KeyObject[];
}

/** Signing secrets (and keys) kept open at most, by subscription and sealed value: a fan-out signs with a few secrets many times. */
const OPENED_SECRETS_MAX = 1_000;

/**
 * The delivery worker's signing secrets, opened from their sealed form at rest (SecretBox) and kept
 * open for a while, so a fan-out does not decrypt the same secret for each of its deliveries.
 */
@Injectable()
export class DeliverySigningSecrets {
  private readonly logger = new Logger(DeliverySigningSecrets.name);
  /** `<subscription id>:<sealed secret>` → the secret (see OPENED_SECRETS_MAX). */
  private readonly opened = boundedCache<string, string>(OPENED_SECRETS_MAX);
  /** `<subscription id>:<sealed key>` → the v1a private key, likewise. */
  private readonly openedKeys = boundedCache<string, KeyObject>(OPENED_SECRETS_MAX);
  /** Subscriptions whose secret did not open, reported once per process. */
  private readonly reportedUnsignable = new Set<string>();

  constructor(private readonly box: SecretBox) {}

  /**
   * The secrets (and v1a keys) that sign this delivery now, opened (new first; the previous one while
   * its overlap lasts); undefined, reported once, when one is sealed with a key SECRETS_ENCRYPTION_KEY no longer
   * lists: the delivery stays pending, unsent, until the key is back.
   */
  forDelivery({ subscriptionId, subscription }: Pick<DeliveryRow, 'subscriptionId' | 'subscription'>): DeliverySigning | undefined {
    const { signingSecret } = subscription;
    // The legacy webhook has no secret: its deliveries go unsigned (spec 9.2), all else the same.
    if (signingSecret === null) return { secrets: [], signingKeys: [] };
    try {
      const now = new Date();
      return {
        secrets: signingSecrets({ ...subscription, signingSecret }, now).map((sealed) => this.open(sealed, subscriptionId)),
        signingKeys: signingKeysOf(subscription, now).map((sealed) => this.openKey(sealed, subscriptionId)),
      };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      if (!this.reportedUnsignable.has(subscriptionId)) {
        this.reportedUnsignable.add(subscriptionId);
        this.logger.error({ subscriptionId, error: error.message }, 'signing secret does not open: deliveries wait');
      }
      return undefined;
    }
  }

  private open(sealed: string, subscriptionId: string): string {
    const key = `${subscriptionId}:${sealed}`;
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = this.box.open(sealed, subscriptionId);
      this.opened.set(key, secret);
    }
    return secret;
  }

  private openKey(sealed: string, subscriptionId: string): KeyObject {
    const cacheKey = `${subscriptionId}:${sealed}`;
    let key = this.openedKeys.get(cacheKey);
    if (key === undefined) {
      key = signingKeyFrom(this.box.open(sealed, signingKeyContext(subscriptionId)));
      this.openedKeys.set(cacheKey, key);
    }
    return key;
  }
}
