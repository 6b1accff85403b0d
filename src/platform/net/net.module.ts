import { Module } from '@nestjs/common';
import { OutboundUrlPolicy } from './outbound-url-policy';

/** Outbound HTTP safety shared by picture downloads and webhook delivery; import it where needed. */
@Module({
  providers: [OutboundUrlPolicy],
  exports: [OutboundUrlPolicy],
})
export class NetModule {}
