/**
 * The custom operator of the extensions benchmark (bench/extensions.bench.ts), loaded by EXTENSIONS beside the two
 * example extensions: `starts_with`, a string prefix.
 */
import { Module } from '@nestjs/common';
import { CriteriaOperator, CriteriaOperatorHandler } from '../../src/extension-api/index.js';

@CriteriaOperator({ name: 'starts_with', description: 'The value is a string starting with the given text' })
export class StartsWith extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected);
  }
}

@Module({ providers: [StartsWith] })
export class BenchExtensionsModule {}
