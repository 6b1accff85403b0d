import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationError as ClassValidatorError } from 'class-validator';
import { FieldIssue, ValidationError } from '../errors/domain-error';

type PathSegment = string | number;

interface LeafIssue {
  path: PathSegment[];
  unknownField: boolean;
  messages: string[];
}

/** `taskGroups[0].tasks[1].colour` */
export function displayPath(path: PathSegment[]): string {
  return path.reduce<string>((text, seg) => (typeof seg === 'number' ? `${text}[${seg}]` : text ? `${text}.${seg}` : seg), '');
}

/** `#/taskGroups/0/tasks/1/colour` (RFC 6901, with ~ and / escaped). */
export function jsonPointer(path: PathSegment[]): string {
  return '#' + path.map((seg) => '/' + String(seg).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Checks on the value's type: when one fails, range or length messages about the same value are noise. */
const TYPE_CHECKS: ReadonlySet<string> = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isDateString',
  'isISO8601',
  'isDateTime',
  'isEnum',
  'isIn',
  ValidationTypes.NESTED_VALIDATION,
]);

/**
 * Where the validated values came from, which names them in the messages: a request's body fields or
 * query parameters (`limit must be an integer`), or a tool's arguments (MCP: `"limit": must be an integer`).
 */
export type ValuesPlace = 'body' | 'query' | 'arguments';

/** A field's message as the place names it: an argument quoted before a colon, a field or parameter as the subject. */
function phrased(where: ValuesPlace, at: string, message: string): string {
  if (where !== 'arguments') return message;
  if (message.startsWith(`${at} `)) return `"${at}": ${message.slice(at.length + 1)}`;
  const each = `each value in ${at} `;
  if (message.startsWith(each)) return `"${at}": each value ${message.slice(each.length)}`;
  return `"${at}": ${message}`;
}

/** One clear message per failing field, naming it by its full path. */
function messagesFor(error: ClassValidatorError, constraints: Record<string, string>, path: PathSegment[], where: ValuesPlace): string[] {
  return fieldMessages(error, constraints, path).map((message) => phrased(where, displayPath(path), message));
}

function fieldMessages(error: ClassValidatorError, constraints: Record<string, string>, path: PathSegment[]): string[] {
  const at = displayPath(path);
  const entries = Object.entries(constraints);
  const typeFailures = entries.filter(([name]) => TYPE_CHECKS.has(name));
  if ((typeFailures.length > 0 || ValidationTypes.IS_DEFINED in constraints) && error.value === undefined) return [`${at} is required`];
  return (typeFailures.length > 0 ? typeFailures : entries).map(([name, message]) => {
    if (name === ValidationTypes.NESTED_VALIDATION)
      return Array.isArray(error.value) ? `every item of ${at} must be an object` : `${at} must be an object`;
    // class-validator starts its messages with the bare property name ("each value in <name>" for
    // `each` rules); show the full path instead.
    if (message.startsWith(`${error.property} `)) return `${at}${message.slice(error.property.length)}`;
    const each = `each value in ${error.property} `;
    return message.startsWith(each) ? `each value in ${at} ${message.slice(each.length)}` : message;
  });
}

/** A value whose own type is wrong (an object where a list goes): what class-validator found inside it is noise. */
function typeFailed(constraints: Record<string, string>): boolean {
  return Object.keys(constraints).some((name) => name !== ValidationTypes.NESTED_VALIDATION && TYPE_CHECKS.has(name));
}

function collect(
  errors: ClassValidatorError[],
  parentPath: PathSegment[],
  parentIsArray: boolean,
  out: LeafIssue[],
  where: ValuesPlace,
): void {
  for (const error of errors) {
    const segment = parentIsArray && /^\d+$/.test(error.property) ? Number(error.property) : error.property;
    const path = [...parentPath, segment];
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) {
      out.push({ path, unknownField: true, messages: [] });
    } else if (Object.keys(constraints).length > 0) {
      out.push({ path, unknownField: false, messages: [...new Set(messagesFor(error, constraints, path, where))] });
      if (typeFailed(constraints)) continue;
    }
    if (error.children?.length) collect(error.children, path, Array.isArray(error.value), out, where);
  }
}

/**
 * Names that class-transformer silently drops while building a DTO (`__proto__`,
 * `constructor`, anything Object.prototype has, like `toString`), so class-validator
 * never sees them as unknown: found here, on the raw input, at any depth.
 */
const DROPPED_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

export function droppedKeyPaths(value: unknown, path: PathSegment[] = [], out: PathSegment[][] = []): PathSegment[][] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => droppedKeyPaths(item, [...path, index], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (DROPPED_KEYS.has(key)) out.push([...path, key]);
      else droppedKeyPaths(child, [...path, key], out);
    }
  }
  return out;
}

export interface ShapeIssue {
  path: PathSegment[];
  message: string;
}

/**
 * class-validator walks into any array it finds under @ValidateNested, so a list
 * where one object is expected (`location: []`) or a list inside a list of
 * objects (`taskGroups: [[...]]`) passes unchecked. Found here on the built DTO,
 * using the declared property type, at any depth.
 */
export function nestedShapeIssues(dto: object, path: PathSegment[] = [], out: ShapeIssue[] = []): ShapeIssue[] {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto.constructor, '', true, false);
  const nested = new Set(metadatas.filter((m) => m.type === ValidationTypes.NESTED_VALIDATION).map((m) => m.propertyName));
  for (const property of nested) {
    const value = (dto as Record<string, unknown>)[property];
    if (value === null || typeof value !== 'object') continue; // missing or primitive: class-validator reports it
    const declared: unknown = Reflect.getMetadata('design:type', dto.constructor.prototype, property);
    const at = [...path, property];
    if (!Array.isArray(value)) {
      nestedShapeIssues(value, at, out);
    } else if (typeof declared === 'function' && declared !== Array && declared !== Object) {
      // Declared as one object (a union type emits Object: then the shape is unknown, so no verdict).
      out.push({ path: at, message: `${displayPath(at)} must be an object, not a list` });
    } else {
      value.forEach((item, index) => {
        if (Array.isArray(item))
          out.push({ path: [...at, index], message: `${displayPath([...at, index])} must be an object, not a list` });
        else if (item !== null && typeof item === 'object') nestedShapeIssues(item, [...at, index], out);
      });
    }
  }
  return out;
}

/**
 * Turns class-validator's error tree into the one error the API answers with:
 * unknown fields win (code objectStrict, every offending path named), otherwise
 * validationFailed with one entry per failing field.
 */
export function toValidationError(
  errors: ClassValidatorError[],
  where: ValuesPlace,
  droppedKeys: PathSegment[][] = [],
  shapeIssues: ShapeIssue[] = [],
): ValidationError {
  const collected: LeafIssue[] = [];
  collect(errors, [], false, collected, where);
  // A list where one object goes: its items' complaints ("location[0] must be an object") and the
  // generic "must be an object" add nothing to the shape issue that names it.
  const isUnder = (path: PathSegment[], prefix: PathSegment[]) => prefix.every((seg, i) => seg === path[i]);
  const leaves = collected.filter((leaf) => leaf.unknownField || !shapeIssues.some((issue) => isUnder(leaf.path, issue.path)));
  for (const issue of shapeIssues)
    leaves.push({ path: issue.path, unknownField: false, messages: [phrased(where, displayPath(issue.path), issue.message)] });
  // A dropped key inside a field already reported as unknown adds nothing.
  const reported = leaves.filter((l) => l.unknownField).map((l) => l.path);
  for (const path of droppedKeys) {
    if (!reported.some((prefix) => prefix.every((seg, i) => seg === path[i]))) leaves.push({ path, unknownField: true, messages: [] });
  }
  const words = WORDS[where];
  // An argument is quoted, as its messages quote it.
  const named = (path: PathSegment[]) => (where === 'arguments' ? `"${displayPath(path)}"` : displayPath(path));

  const unknown = leaves.filter((l) => l.unknownField);
  if (unknown.length > 0) {
    const names = unknown.map((l) => named(l.path));
    const issues: FieldIssue[] = unknown.map((l) => ({
      pointer: jsonPointer(l.path),
      detail: `Unknown ${words.noun} ${named(l.path)} is not allowed`,
    }));
    const label = names.length === 1 ? `Unknown ${words.noun}` : `Unknown ${words.noun}s`;
    return new ValidationError(`${label}: ${names.join(', ')}`, issues, 'objectStrict');
  }

  const issues: FieldIssue[] = leaves.map((l) => ({ pointer: jsonPointer(l.path), detail: l.messages.join('; ') }));
  return new ValidationError(`Invalid ${words.whole}: ${issues.map((i) => i.detail).join('; ')}`, issues);
}

const WORDS: Record<ValuesPlace, { noun: string; whole: string }> = {
  body: { noun: 'field', whole: 'request body' },
  query: { noun: 'query parameter', whole: 'query parameters' },
  arguments: { noun: 'argument', whole: 'arguments' },
};
