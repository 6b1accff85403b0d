import { Body, Controller, Delete, Get, Param, Post, Res, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { storedImage } from '../../platform/http/stored-image';
import { CreatePropertyPictureDto } from './dto/create-property-picture.dto';
import { PropertyPicturesService } from './property-pictures.service';
import { RouteDoc, image, none, ok } from '../../platform/openapi/route-doc';
import { PROPERTY_EXAMPLES } from './properties.declaration';
import { PROPERTY_PICTURE_SHAPE } from './property-picture.response';

@Controller('v1/propertyPictures')
export class PropertyPicturesController {
  constructor(private readonly pictures: PropertyPicturesService) {}

  @RouteDoc({
    summary: 'Add a picture to a property',
    description:
      'The service downloads sourceUrl (https, public address, size and time limits), stores its own copy and serves it at url. 400 pictureDownloadFailed when the download fails.',
    response: ok(PROPERTY_PICTURE_SHAPE, 'The stored picture.'),
    problems: [404],
    example: {
      body: { sourceId: 'living-room-1', sourceUrl: PROPERTY_EXAMPLES.pictureSourceUrl, propertyId: PROPERTY_EXAMPLES.propertyId },
    },
  })
  @Post()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePropertyPictureDto) {
    return this.pictures.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'Delete a picture',
    description: 'Removes the picture and the stored copy of its image; emits propertyPicture.delete.',
    response: none(),
  })
  @Delete(':pictureId')
  async delete(@Ctx() ctx: RequestContext, @Param('pictureId') pictureId: string): Promise<void> {
    await this.pictures.delete(ctx, pictureId);
  }

  /**
   * The stored copy, at the URL pictureUrls lists. Behind x-api-key like every route
   * (spec 5.1) and scoped to the caller's account. A picture's bytes never change, so
   * the caller may cache it forever, but only privately: it is authenticated content.
   */
  @RouteDoc({
    summary: "The picture's stored image",
    description:
      'The bytes of the stored copy (the url a picture lists), with their content type. They never change: cache them, privately (they need the key).',
    response: image(),
  })
  @Get(':pictureId/content')
  async content(
    @Ctx() ctx: RequestContext,
    @Param('pictureId') pictureId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    return storedImage(res, await this.pictures.content(ctx, pictureId));
  }
}
