import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sql } from '../../platform/database/sql';
import { NetModule } from '../../platform/net/net.module';
import { StorageModule } from '../../platform/storage/storage.module';
import { EventsModule } from '../events/events.module';
import { ADDRESS_RESOLVER, OfflineAddressResolver } from './address-resolver';
import { PropertiesRepository } from './properties.repository';
import { PropertiesService } from './properties.service';
import { PropertyPictureEntity } from './property-picture.entity';
import { PropertyPicturesService } from './property-pictures.service';
import { PropertyResolver } from './property-resolver.service';
import { PropertyEntity } from './property.entity';

/** Properties, their pictures, and the resolver every dependent module uses to name a property. */
@Module({
  imports: [TypeOrmModule.forFeature([PropertyEntity, PropertyPictureEntity]), EventsModule, NetModule, StorageModule],
  providers: [
    PropertyResolver,
    PropertiesService,
    PropertiesRepository,
    Sql,
    PropertyPicturesService,
    // Swap for a geocoder by providing another AddressResolver under this token.
    { provide: ADDRESS_RESOLVER, useClass: OfflineAddressResolver },
  ],
  // PropertiesService.resolveForJob is what job requests use (the job's property details update the property).
  exports: [PropertyResolver, PropertiesService, PropertyPicturesService],
})
export class PropertiesModule {}
