import { Module } from '@nestjs/common';
import { PropertiesModule } from './properties.module';
import { PropertiesController } from './properties.controller';
import { PropertyPicturesController } from './property-pictures.controller';

/** The HTTP side of properties and their pictures: its controllers over the core module's services. Only the app module imports it; workers import PropertiesModule. */
@Module({ imports: [PropertiesModule], controllers: [PropertiesController, PropertyPicturesController] })
export class PropertiesHttpModule {}
