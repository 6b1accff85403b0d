import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Asset {
  path: string;
  type: string;
  body: Buffer;
}

/**
 * The console's stylesheet and script, read once at start (`npm run build` copies them beside the
 * compiled code) and served under a name carrying their content hash, so browsers may cache them for
 * good: a new version has a new name. Same origin only: the CSP allows nothing else.
 */
@Injectable()
export class ConsoleAssets {
  readonly urls: { css: string; js: string };
  private readonly byPath = new Map<string, Asset>();

  constructor() {
    const css = this.load('console.css', 'text/css; charset=utf-8');
    const js = this.load('console.js', 'text/javascript; charset=utf-8');
    this.urls = { css: css.path, js: js.path };
  }

  find(path: string): Asset | undefined {
    return this.byPath.get(path);
  }

  private load(file: string, type: string): Asset {
    const body = readFileSync(join(__dirname, 'assets', file));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const [name, ext] = file.split('.');
    const asset = { path: `/console/assets/${name}.${hash}.${ext}`, type, body };
    this.byPath.set(asset.path, asset);
    return asset;
  }
}
