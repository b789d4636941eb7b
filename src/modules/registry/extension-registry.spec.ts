import { Injectable, Module, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CriteriaOperator, CriteriaOperatorHandler, DomainAction, DomainActionHandler, RewardKind, RewardKindHandler, type DomainActionContext, type DomainActionDecision, type RewardContext } from '../../extension-api/index.js';
import { extensionChecks, useExtensionChecks } from '../../common/validation/extension-checks.js';
import { ConfigModule } from '../../config/config.module.js';
import { BuiltIn, ExtensionRegistry } from './extension-registry.js';
import { ExtensionFailures } from './extension-failures.js';
import { RegistryModule } from './registry.module.js';
import { CoreActionsModule } from '../domain-actions/index.js';
import { CoreRewardsModule } from '../campaigns/index.js';
import { CORE_REWARDS } from '../../engine/index.js';

@CriteriaOperator({ name: 'starts_with', description: 'The value starts with the given text.' })
class StartsWith extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected);
  }
}

@Injectable()
class Bonuses {
  readonly factor = 3;
}

/** Injects another provider, to show that handlers are ordinary providers. */
@RewardKind({ name: 'triple_points', description: 'Credits three times the points given.' })
class TriplePoints extends RewardKindHandler<number> {
  constructor(private readonly bonuses: Bonuses) {
    super();
  }
  apply(ctx: RewardContext, points: number): void {
    ctx.credit(points * this.bonuses.factor);
  }
  override points(points: number): number {
    return points * this.bonuses.factor;
  }
}

@Module({ providers: [StartsWith, TriplePoints, Bonuses] })
class StoreExtensionsModule {}

async function registry(...extensions: Type[]): Promise<ExtensionRegistry> {
  // The registry alone: where failures are counted (Redis) is not what these tests are about.
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule, RegistryModule, CoreActionsModule, ...extensions] })
    .overrideProvider(ExtensionFailures)
    .useValue({})
    .compile();
  await moduleRef.init();
  return moduleRef.get(ExtensionRegistry);
}

describe('ExtensionRegistry', () => {
  it('holds the built-ins alone when no extension is loaded', async () => {
    const engine = (await registry()).engine();
    expect([...engine.operators.keys()]).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains']);
    expect([...engine.rewards.keys()]).toEqual(['deal', 'ad_unit', 'points', 'event', 'tier']);
  });

  it("finds the built-in reward kinds' providers (source core) apart from the extensions: the engine keeps its own", async () => {
    const found = await registry(CoreRewardsModule);
    expect([...found.engine().rewards.values()]).toEqual([...CORE_REWARDS.values()]);
    expect([found.definitions().rewardKinds, [...found.arguments().rewards.keys()], [...extensionChecks().rewards.keys()]]).toEqual([[], [], []]);
    useExtensionChecks({ rewards: new Map(), operators: new Map() });
  });

  it('refuses a built-in reward kind the engine does not define', async () => {
    @RewardKind({ name: 'stars', description: 'Not one of the engine.' })
    class Stars extends RewardKindHandler {
      apply(): void {}
    }
    @BuiltIn()
    @Module({ providers: [Stars] })
    class NotCoreModule {}
    await expect(registry(NotCoreModule)).rejects.toThrow('reward kind "stars" (core): the engine has no built-in reward kind of that name');
  });

  it("finds decorated providers in any module, named after their module, bound to their instance", async () => {
    const engine = (await registry(StoreExtensionsModule)).engine();
    const startsWith = engine.operators.get('starts_with')!;
    expect(startsWith.source).toBe('StoreExtensionsModule');
    expect([startsWith.test('paris-01', 'par'), startsWith.test('lyon', 'par')]).toEqual([true, false]);
    const triple = engine.rewards.get('triple_points')!;
    expect(triple.source).toBe('StoreExtensionsModule');
    expect(triple.points!(5, undefined as never)).toBe(15);
    expect(triple.raises).toBeUndefined();
  });

  it("registers its extensions' write-time checks for the process, and none without extensions", async () => {
    await registry(StoreExtensionsModule);
    expect([[...extensionChecks().operators.keys()], [...extensionChecks().rewards.keys()]]).toEqual([['starts_with'], ['triple_points']]);
    expect(extensionChecks().rewards.get('triple_points')!(5)).toEqual({ '': 'must be an object' });
    await registry();
    expect([extensionChecks().operators.size, extensionChecks().rewards.size]).toEqual([0, 0]);
    useExtensionChecks({ rewards: new Map(), operators: new Map() });
  });

  it('finds a provider given as a value (useValue) too', async () => {
    @Module({ providers: [{ provide: 'STARTS_WITH', useValue: new StartsWith() }] })
    class ValueModule {}
    expect((await registry(ValueModule)).engine().operators.get('starts_with')?.source).toBe('ValueModule');
  });

  it('refuses to start with two extensions of one name, naming both sources', async () => {
    @CriteriaOperator({ name: 'starts_with', description: 'Another.' })
    class OtherStartsWith extends StartsWith {}
    @Module({ providers: [OtherStartsWith] })
    class OtherModule {}
    await expect(registry(StoreExtensionsModule, OtherModule)).rejects.toThrow(/^criteria operator "starts_with" is defined twice: by (StoreExtensionsModule and by OtherModule|OtherModule and by StoreExtensionsModule)$/);
  });

  it('refuses to start with an extension named like a built-in', async () => {
    @RewardKind({ name: 'points', description: 'Ours.' })
    class OurPoints extends TriplePoints {}
    @Module({ providers: [OurPoints, Bonuses] })
    class OursModule {}
    await expect(registry(OursModule)).rejects.toThrow('reward kind "points" is defined twice: by core and by OursModule');
  });

  it('refuses a decorated class that does not extend its kind, naming the class and its module', async () => {
    @RewardKind({ name: 'stamp', description: 'Not a handler.' })
    class Stamp {
      apply(): void {}
    }
    @Module({ providers: [Stamp] })
    class StampModule {}
    await expect(registry(StampModule)).rejects.toThrow('reward kind Stamp (StampModule): the class must extend RewardKindHandler');
  });

  it('refuses a name that rules could not use, and the members every stored outcome has', async () => {
    @CriteriaOperator({ name: 'Starts-With', description: 'Bad name.' })
    class BadName extends StartsWith {}
    @Module({ providers: [BadName] })
    class BadNameModule {}
    await expect(registry(BadNameModule)).rejects.toThrow('criteria operator BadName (BadNameModule): its name "Starts-With" must be lower case letters, digits and _, starting with a letter');
    @RewardKind({ name: 'created_at', description: 'Reserved.' })
    class Reserved extends TriplePoints {}
    @Module({ providers: [Reserved, Bonuses] })
    class ReservedModule {}
    await expect(registry(ReservedModule)).rejects.toThrow('reward kind "created_at" (ReservedModule): that name is a member every stored outcome has');
    @RewardKind({ name: 'constructor', description: 'A member of every object.' })
    class Constructor extends TriplePoints {}
    @Module({ providers: [Constructor, Bonuses] })
    class ConstructorModule {}
    await expect(registry(ConstructorModule)).rejects.toThrow('reward kind Constructor (ConstructorModule): its name "constructor" must be lower case letters');
  });

  describe('domain actions', () => {
    class Checkin extends DomainActionHandler {
      decide(ctx: DomainActionContext): DomainActionDecision {
        return { result: ctx.evaluate([{ name: 'checkin' }]) };
      }
    }

    it('holds complete_campaign as a built-in, then the extensions', async () => {
      @DomainAction({ name: 'store_checkin', description: 'A check-in.', tables: ['store_checkins', 'loyalty.checkins'] })
      class StoreCheckin extends Checkin {}
      @Module({ providers: [StoreCheckin] })
      class CheckinModule {}
      const domains = (await registry(CheckinModule)).domains();
      expect([...domains.values()].map((d) => [d.name, d.source, d.tables])).toEqual([
        ['complete_campaign', 'core', []],
        ['store_checkin', 'CheckinModule', ['store_checkins', 'loyalty.checkins']],
      ]);
      expect(domains.get('complete_campaign')!.check({ store: 'PAR' })).toEqual({ store: 'is not a known attribute (this domain takes no args)' });
      expect(domains.get('complete_campaign')!.check({})).toEqual({});
    });

    it('refuses one named like the built-in, one of the wrong class, and a table name that is not plain', async () => {
      @DomainAction({ name: 'complete_campaign', description: 'Ours.' })
      class OurComplete extends Checkin {}
      @Module({ providers: [OurComplete] })
      class OursModule {}
      await expect(registry(OursModule)).rejects.toThrow('domain action "complete_campaign" is defined twice: by core and by OursModule');
      @DomainAction({ name: 'stamp', description: 'Not a handler.' })
      class Stamp {}
      @Module({ providers: [Stamp] })
      class StampModule {}
      await expect(registry(StampModule)).rejects.toThrow('domain action Stamp (StampModule): the class must extend DomainActionHandler');
      @DomainAction({ name: 'drop', description: 'A table name to inject through.', tables: ['checkins; DROP TABLE customers'] })
      class Drop extends Checkin {}
      @Module({ providers: [Drop] })
      class DropModule {}
      await expect(registry(DropModule)).rejects.toThrow('domain action "drop" (DropModule): table "checkins; DROP TABLE customers" must be a plain lower case name (schema.table or table)');
      @DomainAction({ name: 'ledger', description: "Writes the service's ledger.", tables: ['points_ledger'] })
      class Ledger extends Checkin {}
      @Module({ providers: [Ledger] })
      class LedgerModule {}
      await expect(registry(LedgerModule)).rejects.toThrow(`domain action "ledger" (LedgerModule): table "points_ledger" is the service's own; an extension writes tables of its own`);
    });
  });
});
