import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { ADDRESS_RESOLVER, OfflineAddressResolver } from './address-resolver';
import { PropertiesController } from './properties.controller';
import { PropertiesRepository } from './properties.repository';
import { PropertiesService } from './properties.service';
import { PropertyPictureEntity } from './property-picture.entity';
import { PropertyResolver } from './property-resolver.service';
import { PropertyEntity } from './property.entity';

@Module({
  imports: [TypeOrmModule.forFeature([PropertyEntity, PropertyPictureEntity]), EventsModule],
  controllers: [PropertiesController],
  providers: [
    PropertyResolver,
    PropertiesService,
    PropertiesRepository,
    // Swap for a geocoder by providing another AddressResolver under this token.
    { provide: ADDRESS_RESOLVER, useClass: OfflineAddressResolver },
  ],
  exports: [PropertyResolver],
})
export class PropertiesModule {}
