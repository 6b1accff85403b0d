import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { needsResealing, openSecret, sealSecret } from './secret-box.rules';

/** Seals and opens secrets kept at rest with the configured keys (see secret-box.rules.ts). */
@Injectable()
export class SecretBox {
  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'secretsKeyring'>) {}

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.config.secretsKeyring[0].id;
  }

  /** `context` is the id of the row the secret belongs to: the sealed value opens for that row only. */
  seal(plaintext: string, context: string): string {
    return sealSecret(plaintext, this.config.secretsKeyring, context);
  }

  open(stored: string, context: string): string {
    return openSecret(stored, this.config.secretsKeyring, context);
  }

  needsResealing(stored: string): boolean {
    return needsResealing(stored, this.config.secretsKeyring);
  }
}
