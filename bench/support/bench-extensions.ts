/**
 * The extensions of the extensions benchmark (bench/extensions.bench.ts), loaded by EXTENSIONS beside the example
 * extensions: `starts_with`, a string prefix; `bench_points`, a reward crediting its points (the work of the built-in
 * `points`, through the extension surface); `bench_flaky`, an operator that throws on one event in ten (its `n`
 * attribute a multiple of 10), for the bulkhead's workload.
 */
import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';
import { CriteriaOperator, CriteriaOperatorHandler, RewardKind, RewardKindHandler, type RewardContext } from '../../src/extension-api/index.js';

@CriteriaOperator({ name: 'starts_with', description: 'The value is a string starting with the given text' })
export class StartsWith extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected);
  }
}

@CriteriaOperator({ name: 'bench_flaky', description: 'Holds, but throws when the value is a multiple of 10' })
export class BenchFlaky extends CriteriaOperatorHandler {
  test(actual: unknown): boolean {
    if (typeof actual === 'number' && actual % 10 === 0) throw new Error(`bench_flaky: ${actual} is a multiple of 10`);
    return true;
  }
}

class BenchPointsArgs {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  @IsInt()
  @Min(1)
  points!: number;
}

@RewardKind({ name: 'bench_points', description: 'Points credited (the bench reward)', args: BenchPointsArgs })
export class BenchPoints extends RewardKindHandler<BenchPointsArgs> {
  apply(ctx: RewardContext, args: BenchPointsArgs): void {
    ctx.credit(args.points);
  }
  override points(args: BenchPointsArgs): number {
    return args.points;
  }
}

@Module({ providers: [StartsWith, BenchFlaky, BenchPoints] })
export class BenchExtensionsModule {}
