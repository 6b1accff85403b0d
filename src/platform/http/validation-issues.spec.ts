import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsInt, IsObject, IsOptional, Matches, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { ValidationError } from '../errors/domain-error';
import { StrictValidationPipe, validateStrictly } from './strict-validation.pipe';
import { displayPath, droppedKeyPaths, jsonPointer } from './validation-issues';

class TaskDto {
  @IsString()
  @Length(3, 500)
  label: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(999)
  durationInMinutes?: number;
}

class TaskGroupDto {
  @IsString()
  name: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => TaskDto)
  tasks: TaskDto[];
}

class LocationDto {
  @IsInt()
  latitude: number;
}

class ChecklistDto {
  @IsString()
  name: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => LocationDto)
  location?: LocationDto;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => TaskGroupDto)
  taskGroups: TaskGroupDto[];
}

class QueryDto {
  @IsOptional()
  @IsString()
  after?: string;
}

const pipe = new StrictValidationPipe();

async function failureOf(
  value: unknown,
  type: 'body' | 'query' = 'body',
  metatype: new () => object = ChecklistDto,
): Promise<ValidationError> {
  try {
    await pipe.transform(value, { type, metatype });
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

const valid = () => ({
  name: 'Turnover',
  taskGroups: [{ name: 'Kitchen', tasks: [{ label: 'Wipe' }, { label: 'Mop', durationInMinutes: 5 }] }],
});

describe('paths and pointers', () => {
  it('renders display paths and RFC 6901 pointers', () => {
    expect(displayPath(['taskGroups', 0, 'tasks', 1, 'colour'])).toBe('taskGroups[0].tasks[1].colour');
    expect(jsonPointer(['taskGroups', 0, 'tasks', 1, 'colour'])).toBe('#/taskGroups/0/tasks/1/colour');
    expect(jsonPointer([])).toBe('#');
    expect(jsonPointer(['a/b', 'c~d'])).toBe('#/a~1b/c~0d');
  });

  it('finds keys that class-transformer would drop, at any depth', () => {
    const input = JSON.parse('{"a":{"__proto__":{"x":1}},"list":[{"ok":1},{"constructor":2}],"toString":3,"fine":{"valueOf":4}}');
    expect(droppedKeyPaths(input)).toEqual([['a', '__proto__'], ['list', 1, 'constructor'], ['toString'], ['fine', 'valueOf']]);
    expect(droppedKeyPaths({ a: [1, 'x', null], b: { c: true } })).toEqual([]);
  });
});

describe('StrictValidationPipe with nested DTOs', () => {
  it('returns a DTO instance for a valid body', async () => {
    const result = await pipe.transform(valid(), { type: 'body', metatype: ChecklistDto });
    expect(result).toBeInstanceOf(ChecklistDto);
    expect((result as ChecklistDto).taskGroups[0].tasks[1]).toBeInstanceOf(TaskDto);
    expect(result).toEqual(valid());
  });

  it('names an unknown field deep in arrays with its pointer (objectStrict)', async () => {
    const body = valid();
    (body.taskGroups[0].tasks[1] as Record<string, unknown>).colour = 'red';
    const error = await failureOf(body);
    expect(error.code).toBe('objectStrict');
    expect(error.message).toBe('Unknown field: taskGroups[0].tasks[1].colour');
    expect(error.extras.errors).toEqual([
      { pointer: '#/taskGroups/0/tasks/1/colour', detail: 'Unknown field taskGroups[0].tasks[1].colour is not allowed' },
    ]);
  });

  it('names every unknown field, in nested objects too', async () => {
    const body = { ...valid(), extra: 1, location: { latitude: 1, altitude: 2 } };
    (body.taskGroups[0] as Record<string, unknown>).hue = 'blue';
    const error = await failureOf(body);
    expect(error.code).toBe('objectStrict');
    const pointers = (error.extras.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['#/extra', '#/location/altitude', '#/taskGroups/0/hue']);
    expect(error.message).toMatch(/^Unknown fields: /);
  });

  it('reports dropped keys as unknown, once, alongside the others', async () => {
    const body = JSON.parse(
      '{"name":"x","taskGroups":[{"name":"K","tasks":[{"label":"abc","constructor":1}]}],"__proto__":{"polluted":true},"extra":{"toString":1}}',
    );
    const error = await failureOf(body);
    expect(error.code).toBe('objectStrict');
    const pointers = (error.extras.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['#/__proto__', '#/extra', '#/taskGroups/0/tasks/0/constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('lists each invalid field with a pointer and a message starting with its full path', async () => {
    const body = { name: 7, taskGroups: [{ name: 'K', tasks: [{ label: 'ab' }, { label: 'Mop', durationInMinutes: 0 }] }] };
    const error = await failureOf(body);
    expect(error.code).toBe('validationFailed');
    const issues = error.extras.errors as Array<{ pointer: string; detail: string }>;
    expect(issues.map((i) => i.pointer)).toEqual(['#/name', '#/taskGroups/0/tasks/0/label', '#/taskGroups/0/tasks/1/durationInMinutes']);
    expect(issues[1].detail).toMatch(/^taskGroups\[0\]\.tasks\[0\]\.label must be longer than or equal to 3 characters/);
    expect(issues[2].detail).toMatch(/^taskGroups\[0\]\.tasks\[1\]\.durationInMinutes must not be less than 1/);
    expect(error.message).toMatch(/^Invalid request body: /);
  });

  it.each([
    ['a list for one nested object', { ...valid(), location: [] }, '#/location'],
    ['a list of objects for one nested object', { ...valid(), location: [{ latitude: 1 }] }, '#/location'],
    ['a list inside a list of objects', { ...valid(), taskGroups: [[]] }, '#/taskGroups/0'],
    [
      'a list inside a nested list',
      { name: 'x', taskGroups: [{ name: 'K', tasks: [{ label: 'abc' }, [{ label: 'abc' }]] }] },
      '#/taskGroups/0/tasks/1',
    ],
  ])('refuses %s, which class-validator alone accepts', async (_label, body, pointer) => {
    const error = await failureOf(body);
    expect(error.code).toBe('validationFailed');
    expect(error.extras.errors).toEqual([{ pointer, detail: expect.stringMatching(/ must be an object, not a list$/) }]);
  });

  it.each([
    ['an array', [valid()]],
    ['a string', 'text'],
    ['a number', 3],
    ['null', null],
  ])('refuses %s as the body', async (_label, value) => {
    const error = await failureOf(value);
    expect(error.code).toBe('validationFailed');
    expect(error.extras.errors).toEqual([{ pointer: '#', detail: 'The request body must be a JSON object' }]);
  });

  it('reads a missing body as an empty object', async () => {
    const error = await failureOf(undefined);
    expect((error.extras.errors as Array<{ pointer: string }>).map((e) => e.pointer)).toEqual(['#/name', '#/taskGroups']);
  });

  it('speaks of query parameters for queries', async () => {
    const error = await failureOf({ after: 'x', foo: '1', bar: '2' }, 'query', QueryDto);
    expect(error.code).toBe('objectStrict');
    expect(error.message).toBe('Unknown query parameters: foo, bar');
    expect(error.extras.errors).toEqual([
      { pointer: '#/foo', detail: 'Unknown query parameter foo is not allowed' },
      { pointer: '#/bar', detail: 'Unknown query parameter bar is not allowed' },
    ]);
  });

  it("speaks of a tool's arguments, quoted before their messages, for MCP", async () => {
    const refusal = (metatype: new () => object, input: object) =>
      validateStrictly(metatype, input, 'arguments').then(
        () => {
          throw new Error('expected a ValidationError');
        },
        (error: ValidationError) => error,
      );
    const unknown = await refusal(QueryDto, { after: 'x', bogus: 1 });
    expect(unknown).toMatchObject({ code: 'objectStrict', message: 'Unknown argument: "bogus"' });
    expect(unknown.extras.errors).toEqual([{ pointer: '#/bogus', detail: 'Unknown argument "bogus" is not allowed' }]);

    const invalid = await refusal(ChecklistDto, { name: 5, taskGroups: [{ name: 'x', tasks: [{ label: 'ab' }] }] });
    expect(invalid.code).toBe('validationFailed');
    expect(invalid.extras.errors).toEqual([
      { pointer: '#/name', detail: '"name": must be a string' },
      { pointer: '#/taskGroups/0/tasks/0/label', detail: '"taskGroups[0].tasks[0].label": must be longer than or equal to 3 characters' },
    ]);
    expect(invalid.message).toBe(
      'Invalid arguments: "name": must be a string; "taskGroups[0].tasks[0].label": must be longer than or equal to 3 characters',
    );
    const missing = await refusal(ChecklistDto, { taskGroups: [] });
    expect(missing.extras.errors).toEqual([{ pointer: '#/name', detail: '"name": is required' }]);
  });

  it('leaves params, primitives and untyped arguments alone', async () => {
    expect(await pipe.transform('abc', { type: 'param', metatype: String })).toBe('abc');
    expect(await pipe.transform({ x: 1 }, { type: 'body', metatype: Object })).toEqual({ x: 1 });
    expect(await pipe.transform({ x: 1 }, { type: 'body' })).toEqual({ x: 1 });
  });
});

describe('one clear message per failing field', () => {
  it('reports only the type check when the value has the wrong type', async () => {
    const error = await failureOf({ name: 'x', taskGroups: [{ name: 'g', tasks: [{ label: 'ok label', durationInMinutes: '5' }] }] });
    expect(error.extras.errors).toEqual([
      { pointer: '#/taskGroups/0/tasks/0/durationInMinutes', detail: 'taskGroups[0].tasks[0].durationInMinutes must be an integer number' },
    ]);
  });

  it('keeps every range message when the type is right', async () => {
    const error = await failureOf({ name: 'x', taskGroups: [{ name: 'g', tasks: [{ label: 'ab' }] }] });
    expect(error.extras.errors).toEqual([
      { pointer: '#/taskGroups/0/tasks/0/label', detail: 'taskGroups[0].tasks[0].label must be longer than or equal to 3 characters' },
    ]);
  });

  it('says a missing required field is required', async () => {
    const error = await failureOf({ taskGroups: [] });
    expect(error.extras.errors).toEqual([{ pointer: '#/name', detail: 'name is required' }]);
  });

  it('names nested values that are not objects by their path', async () => {
    const error = await failureOf({ name: 'x', taskGroups: [{ name: 'g', tasks: ['text'] }] });
    expect(error.extras.errors).toContainEqual({
      pointer: '#/taskGroups/0/tasks/0',
      detail: expect.stringMatching(/^taskGroups\[0\]\.tasks(\[0\])? /),
    });
  });
});

class TagsDto {
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @Length(1, 5, { each: true })
  tags?: string[];
}

class CodeDto {
  @IsDefined()
  @Matches(/^[A-Z]+$/, { message: '$property must be upper case' })
  code: string;
}

class PlaceDto {
  @IsObject()
  @ValidateNested()
  @Type(() => LocationDto)
  location: LocationDto;
}

class WrapDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => TagsDto)
  wrap?: TagsDto;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];
}

describe('messages name the field by its full path, without noise', () => {
  it('rewrites "each value in <name>" to the full path', async () => {
    const error = await failureOf({ tags: ['ok', 5] }, 'body', WrapDto);
    expect(error.extras.errors).toEqual([{ pointer: '#/tags', detail: 'each value in tags must be a string' }]);
    const nested = await failureOf({ wrap: { tags: [5] } }, 'body', WrapDto);
    expect(nested.extras.errors).toEqual([{ pointer: '#/wrap/tags', detail: 'each value in wrap.tags must be a string' }]);
  });

  it('reports an object where a list goes once, not the fields class-validator looked for inside it', async () => {
    const error = await failureOf({ name: 'x', taskGroups: { name: 'g', tasks: [] } });
    expect(error.extras.errors).toEqual([{ pointer: '#/taskGroups', detail: 'taskGroups must be an array' }]);
  });

  it('reports a list where one object goes once, at its own pointer', async () => {
    const error = await failureOf({ name: 'x', taskGroups: [], location: [1, 2] });
    expect(error.extras.errors).toEqual([{ pointer: '#/location', detail: 'location must be an object, not a list' }]);
  });

  it('says a missing field is required also when its rules are custom ones (IsDefined + a custom check)', async () => {
    const error = await failureOf({}, 'body', CodeDto);
    expect(error.extras.errors).toEqual([{ pointer: '#/code', detail: 'code is required' }]);
    const wrong = await failureOf({ code: 'x' }, 'body', CodeDto);
    expect(wrong.extras.errors).toEqual([{ pointer: '#/code', detail: 'code must be upper case' }]);
  });

  it('never repeats a message for one field', async () => {
    const error = await failureOf({ location: null }, 'body', PlaceDto);
    expect(error.extras.errors).toEqual([{ pointer: '#/location', detail: 'location must be an object' }]);
  });
});
