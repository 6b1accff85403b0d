import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../../platform/http/public.decorator';
import { Ctx, RequestContext } from '../../platform/http/request-context';
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
   * The stored copy, at the URL pictureUrls lists. No key: it is a capability URL
   * (picture id plus a random 128-bit token) so it works in <img> tags and for
   * cleaners' apps; a picture's bytes never change, so caches may keep it forever.
   */
  @Public()
  @Get(':pictureId/content/:token')
  async content(
    @Param('pictureId') pictureId: string,
    @Param('token') token: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { bytes, contentType } = await this.pictures.content(pictureId, token);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    return new StreamableFile(bytes, { type: contentType, length: bytes.length });
  }
}
