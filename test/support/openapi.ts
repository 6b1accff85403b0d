import { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** Routes Express actually serves (`GET /v1/properties/{propertyId}`), read from its router. */
export function registeredRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> };
  };
  const routes: string[] = [];
  for (const layer of express.router.stack) {
    if (!layer.route) continue;
    const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const [method, on] of Object.entries(layer.route.methods))
      if (on && method !== '_all') routes.push(`${method.toUpperCase()} ${path}`);
  }
  return [...new Set(routes)].sort();
}

export function documentedRoutes(doc: OpenAPIObject): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const)
      if (item[method]) routes.push(`${method.toUpperCase()} ${path}`);
  }
  return routes.sort();
}

/** Validates values against the document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 uses). */
export function schemaValidator(doc: OpenAPIObject) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  /** null when valid, else the errors as text. `schema` is a schema of the document ($refs to its components). */
  return (schema: object, value: unknown): string | null => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ $id: `s${compiled.size}`, ...rebase(schema) });
      compiled.set(key, validate);
    }
    return validate(value) ? null : ajv.errorsText(validate.errors, { separator: '\n' });
  };
}

/** Points the document's local $refs (#/components/...) at the registered document. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"openapi#/'));
}
