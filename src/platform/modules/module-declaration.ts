import type { IdKind } from '../ids/ids';
import type { TenantTable } from '../database/tenant-tables';
import type { ReadShape } from '../openapi/read-shape';

/** One event a module publishes: its row in docs/events.md and its webhook in the OpenAPI document. */
export interface EventDescription<T = unknown> {
  /** The read shape of each entry of `results` (published under components/schemas by its name). */
  readonly payload: ReadShape<T>;
  /** What publishes it (docs/events.md, "when"; the webhook's description in the OpenAPI document). */
  readonly when: string;
  /** What `results` holds (docs/events.md). */
  readonly results: string;
}

/**
 * What a module brings to the lists the house assembles (`src/modules/modules.ts`), written once in
 * its `<module>.declaration.ts`: the id kinds it mints, the placeholder ids its example requests use
 * (a route's path id takes the one of its name), the read shapes it publishes with one example each,
 * the events it publishes (in docs/events.md order), and the description of each OpenAPI tag its routes carry.
 */
export interface ModuleDeclaration {
  readonly ids?: Readonly<Record<string, IdKind>>;
  readonly exampleIds?: Readonly<Record<string, string>>;
  readonly shapes?: readonly ReadShape[];
  readonly examples?: Readonly<Record<string, unknown>>;
  readonly events?: Readonly<Record<string, EventDescription>>;
  readonly tags?: Readonly<Record<string, string>>;
  /** The tables whose rows belong to an account (`account_id`): what clearing a sandbox deletes (docs/test-mode.md). */
  readonly tenantTables?: readonly TenantTable[];
}

/**
 * Every module's declaration by the module's name: each `<module>.declaration.ts` adds itself here
 * (declaration merging), so the registration list (`src/modules/modules.ts`), typed from this, fails
 * the typecheck while a declared module is missing from it; the event names and payload types derive
 * from it too.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DeclaredModules {}

/** Checks a declaration and keeps its literal types (event names, payload shapes). */
export const declareModule = <const D extends ModuleDeclaration>(declaration: D): D => declaration;

/** The lists assembled from every module's declaration, in registration order. */
export interface Declarations {
  readonly ids: ReadonlyMap<string, IdKind>;
  readonly exampleIds: Readonly<Record<string, string>>;
  readonly shapes: readonly ReadShape[];
  readonly examples: Readonly<Record<string, unknown>>;
  readonly events: Readonly<Record<string, EventDescription>>;
  readonly eventNames: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  readonly tenantTables: readonly TenantTable[];
}

/** Nest token of the assembled declarations (DeclarationsModule.forRoot). */
export const DECLARATIONS = 'DECLARATIONS';

/** Adds `entries` to `into`, refusing a name (or a `distinct` value) that another module declared already. */
function gather<V>(
  into: Map<string, V>,
  entries: Record<string, V> | undefined,
  what: string,
  module: string,
  distinct?: (value: V) => string,
) {
  for (const [name, value] of Object.entries(entries ?? {})) {
    if (into.has(name)) throw new Error(`${module} declares ${what} ${name} again`);
    const twin = distinct && [...into].find(([, other]) => distinct(other) === distinct(value));
    if (twin) throw new Error(`${module} declares ${what} ${name} as ${distinct(value)}, which ${twin[0]} already is`);
    into.set(name, value);
  }
}

/** The house's lists, from the modules' declarations (a name declared twice throws: one owner each). */
export function assembleDeclarations(modules: Readonly<Record<string, ModuleDeclaration>>): Declarations {
  const ids = new Map<string, IdKind>();
  const exampleIds = new Map<string, string>();
  const shapes = new Map<string, ReadShape>();
  const examples = new Map<string, unknown>();
  const events = new Map<string, EventDescription>();
  const tags = new Map<string, string>();
  const tenantTables = new Map<string, TenantTable>();
  for (const [module, declaration] of Object.entries(modules)) {
    gather(ids, declaration.ids, 'the id kind', module, (kind) => kind.prefix);
    gather(exampleIds, declaration.exampleIds, 'the example id', module);
    gather(shapes, Object.fromEntries((declaration.shapes ?? []).map((shape) => [shape.name, shape])), 'the read shape', module);
    gather(examples, declaration.examples, 'the example of', module);
    gather(events, declaration.events, 'the event', module);
    gather(tags, declaration.tags, 'the tag', module);
    gather(tenantTables, Object.fromEntries((declaration.tenantTables ?? []).map((t) => [t.table, t])), 'the tenant table', module);
  }
  return {
    ids,
    exampleIds: Object.fromEntries(exampleIds),
    shapes: [...shapes.values()],
    examples: Object.fromEntries(examples),
    events: Object.fromEntries(events),
    eventNames: [...events.keys()],
    tags: Object.fromEntries(tags),
    tenantTables: [...tenantTables.values()],
  };
}
