import { Module } from '@nestjs/common';
import { OutboundUrlPolicy } from './outbound-url-policy';
import { SafeDownloader } from './safe-download';

/** Outbound HTTP safety shared by picture downloads and webhook delivery; import it where needed. */
@Module({
  providers: [OutboundUrlPolicy, SafeDownloader],
  exports: [OutboundUrlPolicy, SafeDownloader],
})
export class NetModule {}
