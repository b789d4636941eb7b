import { IsInt, IsNumber, IsPositive, Min } from 'class-validator';
import { objectCheck, useExtensionChecks, valueCheck } from '../../common/validation/extension-checks.js';
import { checkBehavior } from '../campaigns/behaviors/behavior-validation.js';
import type { ArgumentsByName, ExtensionArguments } from './extension-registry.js';
import { canonicalJson, checksOf, findStaleValues, keptStaleValues, upgradeStaleValues, type StoredRulesObject } from './stale-arguments.js';

/** Version 2 of a reward's arguments: `amount` (version 1 stored `points`). */
class BonusArgs {
  @IsInt() @Min(1) amount!: number;
}

/** Version 2 of an operator's value: a number of km (version 1 stored `{ lat, km }`); the class checks it as its `value`. */
class RadiusValue {
  @IsNumber({}, { message: 'value must be a number of km' }) @IsPositive() value!: number;
}

const bonus = (upgrade?: (stored: unknown) => unknown): ExtensionArguments => ({ kind: 'reward_kind', name: 'bonus', source: 'BonusModule', check: objectCheck(BonusArgs), upgrade });
const near = (upgrade?: (stored: unknown) => unknown): ExtensionArguments => ({ kind: 'criteria_operator', name: 'near', source: 'NearModule', check: valueCheck(RadiusValue), upgrade });
const registry = (b = bonus(), n = near()): ArgumentsByName => ({ rewards: new Map([['bonus', b]]), operators: new Map([['near', n]]) });

const outcome = (id: number, member: Record<string, unknown>) => ({ id, ...member, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
const behavior = (outcomes: unknown[], criteria: unknown[] = []): StoredRulesObject => ({
  object_type: 'behavior',
  object_id: 7,
  organization_id: 3,
  outcome_config: outcomes,
  goal_groups: [{ goal_count: null, goals: [{ id: 1, name: 'visit', criteria: [] }, { id: 2, name: 'shop', criteria }] }],
});

describe('findStaleValues', () => {
  const checks = checksOf(registry());

  it("answers the outcomes whose arguments the kind's class refuses, with their field and every problem", () => {
    const stale = findStaleValues([behavior([outcome(1, { points: 10 }), outcome(2, { bonus: { points: 10 } }), outcome(3, { bonus: { amount: 5 } })])], checks);
    expect(stale).toEqual([
      {
        object_type: 'behavior',
        object_id: 7,
        organization_id: 3,
        field: 'outcome_config.1.bonus',
        kind: 'reward_kind',
        extension: 'bonus',
        problems: [
          { field: 'outcome_config.1.bonus.points', message: 'is not a known attribute' },
          { field: 'outcome_config.1.bonus.amount', message: 'must be an integer number' },
        ],
        path: ['outcome_config', 1, 'bonus'],
        value: { points: 10 },
        holder: { bonus: { points: 10 } },
      },
    ]);
  });

  it("answers goal criteria and targeting whose value the operator's class refuses, under the write's fields", () => {
    const stale = findStaleValues(
      [
        behavior([], [{ field: 'store', op: 'eq', value: 'PAR' }, { field: 'location', op: 'near', value: { lat: 1, km: 5 } }, { field: 'location', op: 'near', value: 5 }]),
        { object_type: 'campaign', object_id: 8, organization_id: 3, targeting: [{ field: 'user.attributes.home', op: 'near', value: 'five' }] },
        { object_type: 'creative_group', object_id: 9, organization_id: 4, targeting: [{ field: 'user.tags', op: 'exists' }, { field: 'user.attributes.home', op: 'near' }] },
      ],
      checks,
    );
    expect(stale.map(({ object_type, object_id, field, extension, problems }) => ({ object_type, object_id, field, extension, problems }))).toEqual([
      {
        object_type: 'behavior',
        object_id: 7,
        field: 'goal_groups.0.goals.1.achievement.criteria.1.value',
        extension: 'near',
        problems: [{ field: 'goal_groups.0.goals.1.achievement.criteria.1.value', message: 'must be a number of km' }],
      },
      { object_type: 'campaign', object_id: 8, field: 'targeting.0.value', extension: 'near', problems: [{ field: 'targeting.0.value', message: 'must be a number of km' }] },
      { object_type: 'creative_group', object_id: 9, field: 'targeting.1.value', extension: 'near', problems: [{ field: 'targeting.1.value', message: 'is required for near' }] },
    ]);
    expect(stale[0]).toMatchObject({ path: ['goal_groups', 0, 'goals', 1, 'criteria', 1, 'value'], value: { lat: 1, km: 5 }, holder: { field: 'location', op: 'near', value: { lat: 1, km: 5 } } });
  });

  it('leaves built-ins, valid values and extensions not loaded alone', () => {
    const objects = [
      behavior([outcome(1, { bonus: { amount: 3 } }), outcome(2, { gone: { x: 1 } }), outcome(3, { tier: { name: 'Gold' } })], [{ field: 'n', op: 'gone', value: {} }, { field: 'n', op: 'near', value: 2 }]),
      { object_type: 'campaign' as const, object_id: 8, organization_id: 3, targeting: [{ field: 'user.tier', op: 'in', value: ['Gold'] }] },
    ];
    expect(findStaleValues(objects, checks)).toEqual([]);
    expect(findStaleValues([behavior([outcome(1, { bonus: { points: 1 } })])], { rewards: new Map(), operators: new Map() })).toEqual([]);
  });
});

describe('keptStaleValues', () => {
  const stale = findStaleValues([behavior([outcome(2, { bonus: { points: 10, label: 'x' } })], [{ field: 'location', op: 'near', value: { lat: 1, km: 5 } }])], checksOf(registry()));
  const kept = keptStaleValues(stale)!;

  it('keeps an outcome or a criterion equal to a stored stale one, members in any order', () => {
    expect(kept.outcome('bonus', { label: 'x', points: 10 })).toBe(true);
    expect(kept.criterion({ value: { km: 5, lat: 1 }, op: 'near', field: 'location' })).toBe(true);
  });

  it('does not keep a changed one', () => {
    expect(kept.outcome('bonus', { points: 11, label: 'x' })).toBe(false);
    expect(kept.criterion({ field: 'home', op: 'near', value: { lat: 1, km: 5 } })).toBe(false);
    expect(keptStaleValues([])).toBeUndefined();
  });

  it('lets checkBehavior take them as stored and check the others as sent', () => {
    useExtensionChecks(checksOf(registry()));
    try {
      const submitted = (outcomes: unknown[], criteria: unknown[]) => ({
        name: 'Renamed',
        data: {},
        goal_groups: [{ goals: [{ achievement: { name: 'shop', criteria } }] }],
        outcome_config: outcomes,
      });
      const same = checkBehavior(submitted([{ bonus: { label: 'x', points: 10 } }], [{ field: 'count', op: 'gte', value: 1 }, { field: 'location', op: 'near', value: { lat: 1, km: 5 } }]), kept);
      expect(same.errors).toEqual({});
      expect(same.input.outcome_config).toEqual([{ bonus: { label: 'x', points: 10 } }]);
      expect(same.input.goal_groups[0].goals[0].criteria).toHaveLength(2);

      const changed = checkBehavior(submitted([{ bonus: { points: 11 } }], [{ field: 'location', op: 'near', value: { lat: 1, km: 5 } }, { field: 'location', op: 'near', value: { km: 6 } }]), kept);
      expect(changed.errors).toEqual({
        'outcome_config.0.bonus.amount': 'must be an integer number',
        'outcome_config.0.bonus.points': 'is not a known attribute',
        'goal_groups.0.goals.0.achievement.criteria.1.value': 'must be a number of km',
      });
      // Without them (a batch), the stored ones are checked as any other.
      expect(Object.keys(checkBehavior(submitted([{ bonus: { label: 'x', points: 10 } }], [])).errors).sort()).toEqual([
        'outcome_config.0.bonus.amount',
        'outcome_config.0.bonus.label',
        'outcome_config.0.bonus.points',
      ]);
    } finally {
      useExtensionChecks({ rewards: new Map(), operators: new Map() });
    }
  });
});

describe('upgradeStaleValues', () => {
  const now = '2026-12-01T00:00:00.000Z';
  const object = behavior([outcome(1, { points: 5 }), outcome(2, { bonus: { points: 10 } })], [{ field: 'location', op: 'near', value: '5' }]);

  it('puts each upgrade the check accepts in place: an outcome keeps its id and gets updated_at, a criterion its field and op', () => {
    const args = registry(
      bonus((stored) => ({ amount: (stored as { points: number }).points })),
      near((stored) => Number(stored)),
    );
    const stale = findStaleValues([object], checksOf(args));
    const result = upgradeStaleValues(object, stale, args, now);
    expect(result.left).toEqual([]);
    expect(result.upgraded.map(({ value, after }) => [value.field, after])).toEqual([
      ['outcome_config.1.bonus', { amount: 10 }],
      ['goal_groups.0.goals.1.achievement.criteria.0.value', 5],
    ]);
    expect(result.columns).toEqual({
      outcome_config: [outcome(1, { points: 5 }), { ...outcome(2, { bonus: { amount: 10 } }), updated_at: now }],
      goal_groups: [{ goal_count: null, goals: [{ id: 1, name: 'visit', criteria: [] }, { id: 2, name: 'shop', criteria: [{ field: 'location', op: 'near', value: 5 }] }] }],
    });
    // The stored object is left as it was, and nothing is stale any more.
    expect(object).toEqual(behavior([outcome(1, { points: 5 }), outcome(2, { bonus: { points: 10 } })], [{ field: 'location', op: 'near', value: '5' }]));
    expect(findStaleValues([{ ...object, ...result.columns } as StoredRulesObject], checksOf(args))).toEqual([]);
  });

  it('leaves a value without an upgrade, one whose upgrade throws and one whose upgrade is refused, saying why', () => {
    const args = registry(
      bonus(() => ({ amount: 0 })),
      near(() => {
        throw new Error('cannot read "5"');
      }),
    );
    const result = upgradeStaleValues(object, findStaleValues([object], checksOf(args)), args, now);
    expect(result.columns).toBeNull();
    expect(result.left.map(({ value, reason, problems }) => [value.field, reason, problems])).toEqual([
      ['outcome_config.1.bonus', 'still_invalid', [{ field: 'outcome_config.1.bonus.amount', message: 'must not be less than 1' }]],
      ['goal_groups.0.goals.1.achievement.criteria.0.value', 'upgrade_failed', [{ field: 'goal_groups.0.goals.1.achievement.criteria.0.value', message: 'upgrade threw: cannot read "5"' }]],
    ]);
    const none = registry();
    expect(upgradeStaleValues(object, findStaleValues([object], checksOf(none)), none, now).left.map((l) => l.reason)).toEqual(['no_upgrade', 'no_upgrade']);
  });

  it('hands the upgrade a copy and stores what it answers as JSON', () => {
    const args = registry(
      bonus((stored) => {
        (stored as { points: number }).points = 99;
        return { amount: 2, note: undefined };
      }),
    );
    const result = upgradeStaleValues(object, findStaleValues([object], checksOf(args)), args, now);
    expect(result.upgraded.map((u) => u.after)).toEqual([{ amount: 2 }]);
    expect(Object.keys(result.upgraded[0].after as object)).toEqual(['amount']);
    expect(canonicalJson((object as { outcome_config: unknown[] }).outcome_config[1])).toContain('"points":10');
  });
});
