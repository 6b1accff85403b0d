import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { CreatePropertyPictureDto } from './dto/create-property-picture.dto';
import { PropertyPicturesService } from './property-pictures.service';

@Controller('v1/propertyPictures')
export class PropertyPicturesController {
  constructor(private readonly pictures: PropertyPicturesService) {}

  @Post()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePropertyPictureDto) {
    return this.pictures.create(ctx, dto);
  }

  @Delete(':pictureId')
  @HttpCode(204)
  async delete(@Ctx() ctx: RequestContext, @Param('pictureId') pictureId: string): Promise<void> {
    await this.pictures.delete(ctx, pictureId);
  }

  /**
   * The stored copy, at the URL pictureUrls lists. Behind x-api-key like every route
   * (spec 5.1) and scoped to the caller's account. A picture's bytes never change, so
   * the caller may cache it forever, but only privately: it is authenticated content.
   */
  @Get(':pictureId/content')
  async content(
    @Ctx() ctx: RequestContext,
    @Param('pictureId') pictureId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { bytes, contentType } = await this.pictures.content(ctx, pictureId);
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    return new StreamableFile(bytes, { type: contentType, length: bytes.length });
  }
}
