/** A column of the map: its name, and optionally how to turn the driver's value into the field's. */
export interface ColumnDef<V> {
  column: string;
  decode: (value: unknown) => V;
}

/** Every field of the entity, each to its column: a field added to the entity without a column fails the typecheck. */
export type ColumnMap<E> = { readonly [K in keyof E]-?: string | ColumnDef<E[K]> };

/** A row as the select list names its columns: by the entity's field names. */
export type SelectedRow = Record<string, unknown>;

/**
 * The one mapping between a table's columns and an entity, for repositories that write SQL by hand:
 * `selectList('b')` selects each column under its field name (`b.account_id AS "accountId"`), so
 * `toEntity(row)` is the same loop for every query (SELECT, INSERT/UPDATE/DELETE … RETURNING).
 */
export class Columns<E> {
  readonly fields: ReadonlyArray<keyof E & string>;
  /** selectList() of every field, unqualified: `SELECT ${all} FROM …`, `RETURNING ${all}`. */
  readonly all: string;

  constructor(
    private readonly map: ColumnMap<E>,
    private readonly create: () => E,
  ) {
    this.fields = Object.keys(map) as Array<keyof E & string>;
    this.all = this.selectList();
  }

  /** The column of a field (for WHERE, SET and INSERT column lists). */
  column(field: keyof E & string): string {
    const def = this.map[field];
    return typeof def === 'string' ? def : def.column;
  }

  /** `alias.column AS "field", …` (without alias, unqualified), every field or the ones given, in map order. */
  selectList(alias?: string, fields: ReadonlyArray<keyof E & string> = this.fields): string {
    const prefix = alias ? `${alias}.` : '';
    return fields.map((field) => `${prefix}${this.column(field)} AS "${field}"`).join(', ');
  }

  /** The entity of a row read with selectList (every field of this map), decoders applied; bound, so `rows.map(X.toEntity)` works. */
  readonly toEntity = (row: SelectedRow): E => {
    const entity = this.create() as Record<string, unknown>;
    for (const field of this.fields) {
      const def = this.map[field];
      entity[field] = typeof def === 'string' ? row[field] : def.decode(row[field]);
    }
    return entity as E;
  };

  /** The map of some fields only (a narrower read, such as a read shape's columns). */
  pick<K extends keyof E & string>(fields: readonly K[]): Columns<Pick<E, K>> {
    const map = Object.fromEntries(fields.map((field) => [field, this.map[field]])) as unknown as ColumnMap<Pick<E, K>>;
    return new Columns(map, this.create as () => Pick<E, K>);
  }
}

/**
 * Declares a table's column map, checked against the entity at compile time:
 * `columns<Booking>({ id: 'id', accountId: 'account_id', … }, BookingEntity)`. Without a class,
 * rows map to plain objects.
 */
export function columns<E>(map: ColumnMap<E>, entity?: new () => E): Columns<E> {
  return new Columns(map, entity ? () => new entity() : () => ({}) as E);
}

/** id and account_id, as every account-owned entity has them (entity-columns.ts: AccountOwnedEntity). */
export const ACCOUNT_OWNED_COLUMNS = { id: 'id', accountId: 'account_id' } as const;

/** created_at and updated_at (entity-columns.ts: AccountOwnedTimestampedEntity). */
export const TIMESTAMP_COLUMNS = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

/** What an insert writes: the entity less the timestamps the database sets and the fields named. */
export type NewRow<E, K extends keyof E = never> = Omit<E, 'createdAt' | 'updatedAt' | K>;
