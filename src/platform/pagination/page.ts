/** The collection envelope of every list (spec convention 6). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** Lists fetch `limit + 1` rows; the extra row only says whether another page exists. */
export function toPage<Row, T>(rows: Row[], limit: number, map: (row: Row) => T, cursorOf: (row: Row) => string): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: pageRows.map(map),
    nextCursor: hasMore ? cursorOf(pageRows[pageRows.length - 1]) : null,
    hasMore,
  };
}

export function unpaginated<T>(data: T[]): Page<T> {
  return { data, nextCursor: null, hasMore: false };
}
