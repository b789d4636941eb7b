import 'reflect-metadata';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsArray, IsObject, IsOptional, IsString } from 'class-validator';
import { AppError } from '../errors/app-error.js';
import { NestedObject, Required } from './validators.js';
import { checkWrappers, RequiredObject, wrappersOf, type DtoClass } from './wrappers.js';

class ItemInput {
  @Required()
  @IsString()
  name: string;
}

class ItemBody {
  @Required()
  @NestedObject()
  @Type(() => ItemInput)
  item: ItemInput;
}

class DocumentedItemBody {
  @ApiProperty({ type: ItemInput, description: 'The item' })
  @Required()
  @NestedObject()
  @Type(() => ItemInput)
  item: ItemInput;
}

class RequiredObjectBody {
  @RequiredObject(ItemInput, 'The item')
  item: ItemInput;
}

class PairBody {
  @Required()
  @NestedObject()
  @Type(() => ItemInput)
  first: ItemInput;

  @Required()
  @IsObject()
  second: Record<string, unknown>;
}

class BatchBody {
  @Required()
  @IsArray()
  items: unknown[];
}

class FlatBody {
  @Required()
  @IsString()
  domain: string;

  @IsOptional()
  @NestedObject()
  @Type(() => ItemInput)
  extra?: ItemInput;
}

function thrown(run: () => void): AppError | undefined {
  try {
    run();
  } catch (error) {
    return error as AppError;
  }
  return undefined;
}

describe('wrappersOf', () => {
  it('names the required members that hold an object or an array', () => {
    expect(wrappersOf(ItemBody)).toEqual(['item']);
    expect([...wrappersOf(PairBody)].sort()).toEqual(['first', 'second']);
    expect(wrappersOf(BatchBody)).toEqual(['items']);
  });

  it('leaves out required scalars and optional objects', () => {
    expect(wrappersOf(FlatBody)).toEqual([]);
  });
});

describe('RequiredObject', () => {
  const validators = (dto: DtoClass) => getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false).map((m) => [m.propertyName, m.type, m.name]);
  const documented = (dto: DtoClass) => Reflect.getMetadata('swagger/apiModelProperties', dto.prototype as object, 'item') as unknown;

  it('is the four decorators written over a wrapper: the same validators in the same order, the same document, a wrapper', () => {
    expect(validators(RequiredObjectBody)).toEqual(validators(DocumentedItemBody));
    expect(validators(RequiredObjectBody).map(([, type]) => type)).toEqual(['customValidation', 'nestedValidation', 'isDefined']);
    expect(documented(RequiredObjectBody)).toEqual(documented(DocumentedItemBody));
    expect(documented(RequiredObjectBody)).toMatchObject({ type: ItemInput, description: 'The item' });
    expect(wrappersOf(RequiredObjectBody)).toEqual(['item']);
  });
});

describe('checkWrappers', () => {
  it('answers missing_data naming the wrapper, even beside unknown members', () => {
    const error = thrown(() => checkWrappers(ItemBody, { name: 'x', colour: 'red' }));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'missing_data', details: [{ field: 'item', message: 'is required' }] });
  });

  it('treats a null wrapper as missing, and names every missing wrapper', () => {
    expect(thrown(() => checkWrappers(ItemBody, { item: null }))).toMatchObject({ code: 'missing_data' });
    const error = thrown(() => checkWrappers(PairBody, { second: {}, extra: 1 }));
    expect(error).toMatchObject({ code: 'missing_data', details: [{ field: 'first', message: 'is required' }] });
    expect(thrown(() => checkWrappers(PairBody, {}))?.details?.map((d) => d.field).sort()).toEqual(['first', 'second']);
  });

  it('does not take an inherited member for the wrapper', () => {
    expect(thrown(() => checkWrappers(ItemBody, Object.create({ item: { name: 'x' } }) as object))).toMatchObject({ code: 'missing_data' });
  });

  it('lets a body with its wrappers through, whatever else it holds (the DTO validation answers for that)', () => {
    expect(thrown(() => checkWrappers(ItemBody, { item: {}, colour: 'red' }))).toBeUndefined();
    expect(thrown(() => checkWrappers(ItemBody, { item: 'not an object' }))).toBeUndefined();
    expect(thrown(() => checkWrappers(BatchBody, { items: [] }))).toBeUndefined();
  });

  it('leaves bodies without wrappers, and bodies that are not plain objects, to the DTO validation', () => {
    expect(thrown(() => checkWrappers(FlatBody, { colour: 'red' }))).toBeUndefined();
    expect(thrown(() => checkWrappers(ItemBody, []))).toBeUndefined();
    expect(thrown(() => checkWrappers(ItemBody, 'text'))).toBeUndefined();
    expect(thrown(() => checkWrappers(ItemBody, undefined))).toBeUndefined();
  });
});
