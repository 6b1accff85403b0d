import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { BLOB_STORE } from './blob-store';
import { LocalDirectoryBlobStore } from './local-directory-blob-store';

/** Provides BLOB_STORE (inject with @Inject(BLOB_STORE) store: BlobStore); a local directory for now. */
@Module({
  providers: [
    { provide: BLOB_STORE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new LocalDirectoryBlobStore(config.blobStorageDir) },
  ],
  exports: [BLOB_STORE],
})
export class StorageModule {}
