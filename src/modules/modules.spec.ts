import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assembleDeclarations } from '../platform/modules/module-declaration';
import { idKind } from '../platform/ids/ids';
import { DECLARED, MODULES } from './modules';

/** Every `<module>.declaration.ts` in this folder, by the name it declares itself under (DeclaredModules). */
function declarationFiles(): Map<string, string> {
  const found = new Map<string, string>();
  for (const folder of readdirSync(__dirname, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of readdirSync(join(__dirname, folder.name)).filter((name) => name.endsWith('.declaration.ts'))) {
      const text = readFileSync(join(__dirname, folder.name, file), 'utf8');
      const name = /interface DeclaredModules \{\s*(\w+):/.exec(text)?.[1];
      found.set(`${folder.name}/${file}`, name ?? '(no DeclaredModules entry)');
    }
  }
  return found;
}

describe('the registered modules', () => {
  it('registers every module declaration there is (and each declares itself under its name)', () => {
    expect([...declarationFiles().values()].sort()).toEqual(Object.keys(MODULES).sort());
  });

  it("assembles each module's ids, example ids, shapes, examples and events", () => {
    for (const { declaration } of Object.values(MODULES) as Array<(typeof MODULES)[keyof typeof MODULES]>) {
      const d = declaration as Parameters<typeof assembleDeclarations>[0][string];
      for (const kind of Object.values(d.ids ?? {})) expect([...DECLARED.ids.values()]).toContain(kind);
      expect(DECLARED.exampleIds).toEqual(expect.objectContaining(d.exampleIds ?? {}));
      for (const shape of d.shapes ?? []) expect(DECLARED.shapes).toContain(shape);
      expect(DECLARED.examples).toEqual(expect.objectContaining(d.examples ?? {}));
      expect(DECLARED.events).toEqual(expect.objectContaining(d.events ?? {}));
    }
  });

  it('gives every id kind its own prefix, and each example id is of a declared kind', () => {
    const prefixes = [...DECLARED.ids.values()].map((kind) => kind.prefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const id of Object.values(DECLARED.exampleIds)) expect(prefixes).toContain(id.slice(0, id.indexOf('_')));
  });

  it('has an example of every published shape, and publishes the shape of every example and event payload', () => {
    const names = DECLARED.shapes.map((shape) => shape.name);
    const withoutExample = ['OtherAttribute'];
    expect(Object.keys(DECLARED.examples).sort()).toEqual(names.filter((name) => !withoutExample.includes(name)).sort());
    for (const { payload } of Object.values(DECLARED.events)) expect(DECLARED.shapes).toContain(payload);
  });

  it('refuses a name two modules both declare', () => {
    expect(() => assembleDeclarations({ a: { ids: { x: idKind('xa') } }, b: { ids: { y: idKind('xa') } } })).toThrow(
      'b declares the id kind y as xa, which x already is',
    );
    const shape = { name: 'Thing', schema: {} };
    expect(() => assembleDeclarations({ a: { shapes: [shape] }, b: { shapes: [shape] } })).toThrow(/b declares the read shape Thing again/);
  });
});
