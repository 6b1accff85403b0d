import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { PropertyPictureEntity } from './property-picture.entity';
import { PropertyResolver } from './property-resolver.service';
import { PropertyEntity } from './property.entity';

@Module({
  imports: [TypeOrmModule.forFeature([PropertyEntity, PropertyPictureEntity]), EventsModule],
  providers: [PropertyResolver],
  exports: [PropertyResolver],
})
export class PropertiesModule {}
