import { Global, Module } from '@nestjs/common';
import { SecretBox } from './secret-box';

/** Secrets at rest, sealed with SECRETS_ENCRYPTION_KEY; every process may need them. */
@Global()
@Module({ providers: [SecretBox], exports: [SecretBox] })
export class SecretsModule {}
