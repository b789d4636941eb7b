import { describeFailure } from './criteria.js';
import { CORE_OPERATORS } from './operators.js';
import type { EvaluationResult } from './result.js';
import { behavior, campaign, customer, event, goal, group, rules, Session } from './spec-fixtures.js';
import type { Criterion, CriterionOp, CustomerSnapshot } from './types.js';

type Row = [CriterionOp, unknown, unknown, boolean];
/** Whether a built-in operator holds (the registry's own test). */
const holds = (op: CriterionOp, actual: unknown, expected: unknown) => CORE_OPERATORS.get(op)!.test(actual, expected);

const check = ([op, actual, expected, result]: Row) => expect(holds(op, actual, expected)).toBe(result);

describe('Criteria', () => {
  describe('operators on numbers', () => {
    it.each<Row>([
      ['eq', 5, 5, true],
      ['eq', 5, 6, false],
      ['ne', 5, 6, true],
      ['ne', 5, 5, false],
      ['gt', 6, 5, true],
      ['gt', 5, 5, false],
      ['gte', 5, 5, true],
      ['gte', 4, 5, false],
      ['lt', 4, 5, true],
      ['lt', 5, 5, false],
      ['lte', 5, 5, true],
      ['lte', 6, 5, false],
      ['in', 5, [1, 5], true],
      ['in', 5, [1, 2], false],
      ['nin', 5, [1, 2], true],
      ['nin', 5, [1, 5], false],
      ['exists', 0, true, true],
      ['exists', 0, false, false],
      ['gt', -1.5, -2, true],
    ])('%s: %j against %j is %s', (...row) => check(row));
  });

  describe('operators on numeric strings (compared as numbers)', () => {
    it.each<Row>([
      ['eq', '5', 5, true],
      ['eq', 5, '5.0', true],
      ['ne', '5', 5, false],
      ['gt', '10', 9, true],
      ['gt', '10', '9', true],
      ['lt', '10', '9', false],
      ['gte', '2.5', 2.5, true],
      ['lte', '-3', '-2', true],
      ['in', '5', [5, 6], true],
      ['nin', '5', [5, 6], false],
      ['eq', '', 0, false],
    ])('%s: %j against %j is %s', (...row) => check(row));
  });

  describe('operators on booleans (equal only booleans)', () => {
    it.each<Row>([
      ['eq', true, true, true],
      ['eq', false, false, true],
      ['eq', true, false, false],
      ['eq', true, 'true', false],
      ['eq', true, 1, false],
      ['eq', false, 0, false],
      ['ne', false, 0, true],
      ['ne', true, true, false],
      ['in', true, [true], true],
      ['in', true, [1, 'true'], false],
      ['nin', false, [0], true],
      ['gt', true, false, false],
      ['lte', false, true, false],
      ['exists', false, true, true],
    ])('%s: %j against %j is %s', (...row) => check(row));
  });

  describe('operators on strings', () => {
    it.each<Row>([
      ['eq', 'mobile', 'mobile', true],
      ['eq', 'mobile', 'Mobile', false],
      ['ne', 'mobile', 'web', true],
      ['in', 'web', ['mobile', 'web'], true],
      ['in', 'tv', ['mobile', 'web'], false],
      ['in', 'web', 'web', false],
      ['nin', 'tv', ['mobile', 'web'], true],
      ['contains', 'hello world', 'lo w', true],
      ['contains', 'hello world', 'bye', false],
      ['gt', 'abc', 'abb', false],
      ['lt', 'abb', 'abc', false],
      ['gte', 'abc', 'abc', false],
      ['exists', '', true, true],
    ])('%s: %j against %j is %s', (...row) => check(row));
  });

  describe('operators on ISO datetimes (compared as instants)', () => {
    it.each<Row>([
      ['gt', '2026-01-05T11:00:00Z', '2026-01-05T10:00:00Z', true],
      ['lt', '2026-01-05T11:00:00Z', '2026-01-05T10:00:00Z', false],
      ['gt', '2026-01-05T11:00:00+02:00', '2026-01-05T10:00:00Z', false],
      ['lt', '2026-01-05T11:00:00+02:00', '2026-01-05T10:00:00Z', true],
      ['gte', '2026-01-05T12:00:00+02:00', '2026-01-05T10:00:00Z', true],
      ['lte', '2026-01-05T12:00:00+02:00', '2026-01-05T10:00:00Z', true],
      ['lt', '2026-01-05', '2026-01-05T10:00:00Z', true],
      ['gt', '2026-01-05 10:30:00Z', '2026-01-05T10:00:00Z', true],
      ['gt', '2026-01-05T10:00:00Z', 5, false],
    ])('%s: %j against %j is %s', (...row) => check(row));

    it('eq and ne see two spellings of one instant as equal, as gte and lte do', () => {
      const [local, utc] = ['2026-01-05T12:00:00+02:00', '2026-01-05T10:00:00Z'];
      expect([holds('gte', local, utc), holds('lte', local, utc)]).toEqual([true, true]);
      expect(holds('eq', local, utc)).toBe(true);
      expect(holds('ne', local, utc)).toBe(false);
    });
  });

  describe('operators on lists (such as user.tags)', () => {
    const tags = ['vip', 'gold'];
    it.each<Row>([
      ['eq', tags, 'gold', true],
      ['eq', tags, 'silver', false],
      ['ne', tags, 'gold', false],
      ['ne', tags, 'silver', true],
      ['in', tags, ['silver', 'vip'], true],
      ['in', tags, ['silver'], false],
      ['nin', tags, ['silver'], true],
      ['nin', tags, ['silver', 'vip'], false],
      ['contains', tags, 'vip', true],
      ['contains', tags, 'vi', false],
      ['contains', [1, 2], '2', true],
      ['eq', [], 'vip', false],
      ['contains', [], 'vip', false],
    ])('%s: %j against %j is %s', (...row) => check(row));
  });

  describe('a missing field', () => {
    it.each<CriterionOp>(['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains'])('fails %s', (op) => {
      expect(holds(op, undefined, op === 'in' ? ['x'] : 'x')).toBe(false);
      expect(holds(op, null, op === 'in' ? ['x'] : 'x')).toBe(false);
    });

    it('fails exists (true or unset)', () => {
      expect(holds('exists', undefined, true)).toBe(false);
      expect(holds('exists', undefined, undefined)).toBe(false);
    });

    it('passes ne, nin and exists: false', () => {
      expect(holds('ne', undefined, 'x')).toBe(true);
      expect(holds('nin', undefined, ['x'])).toBe(true);
      expect(holds('exists', undefined, false)).toBe(true);
      expect(holds('exists', null, false)).toBe(true);
    });
  });

  it('describes a failure with the criterion and the actual value', () => {
    expect(describeFailure({ criterion: { field: 'count', op: 'gte', value: 2 }, actual: 1 })).toBe('count gte 2 failed (actual: 1)');
    expect(describeFailure({ criterion: { field: 'store_id', op: 'exists' }, actual: undefined })).toBe('store_id exists true failed (actual: absent)');
  });
});

/** One campaign whose single goal (event `visit`, one count per cycle) has these criteria. */
function goalSession(criteria: Criterion[]) {
  const g = goal({ criteria, eventCount: 100 });
  const b = behavior({ groups: [group([g])] });
  const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
  return { session, count: () => session.goalCount(b.id, g.id) };
}

function goalExplanation(result: EvaluationResult) {
  return result.explanation[0].campaigns[0].behaviors[0].goals[0];
}

describe('Criteria on goals (read the instance)', () => {
  // Worked example: context.app_name eq "mobile" counts a mobile instance and ignores one without app_name.
  it('context.app_name eq "mobile" counts a mobile instance and ignores one without app_name (worked example)', () => {
    const { session, count } = goalSession([{ field: 'context.app_name', op: 'eq', value: 'mobile' }]);
    expect(goalExplanation(session.send(event('visit', { context: { app_name: 'mobile' } }))).verdict).toBe('counted');
    expect(count()).toBe(1);

    const ignored = goalExplanation(session.send(event('visit')));
    expect(ignored.verdict).toBe('criteria_failed');
    expect(ignored.detail).toBe('criteria not met: context.app_name eq "mobile" failed (actual: absent)');
    expect(count()).toBe(1);
  });

  it('reads count from the instance', () => {
    const { session, count } = goalSession([{ field: 'count', op: 'gte', value: 2 }]);
    session.send(event('visit', { count: 1 }));
    expect(count()).toBe(0);
    session.send(event('visit', { count: 3 }));
    expect(count()).toBe(3);
  });

  it('reads context.<key> only from the context, not from attributes', () => {
    const { session, count } = goalSession([{ field: 'context.app_name', op: 'eq', value: 'mobile' }]);
    session.send(event('visit', { attributes: { app_name: 'mobile' } }));
    expect(count()).toBe(0);
  });

  it('reads a plain field from the attributes, not from the context', () => {
    const { session, count } = goalSession([{ field: 'store_id', op: 'in', value: ['s1', 's2'] }]);
    session.send(event('visit', { context: { store_id: 's1' } }));
    expect(count()).toBe(0);
    session.send(event('visit', { attributes: { store_id: 's2' } }));
    expect(count()).toBe(1);
  });

  it('reaches into nested attribute objects with a dotted path', () => {
    const { session, count } = goalSession([{ field: 'store.address.city', op: 'eq', value: 'Lyon' }]);
    session.send(event('visit', { attributes: { store: { address: { city: 'Paris' } } } }));
    expect(count()).toBe(0);
    session.send(event('visit', { attributes: { store: { address: { city: 'Lyon' } } } }));
    expect(count()).toBe(1);
    session.send(event('visit', { attributes: { store: 'Lyon' } }));
    expect(count()).toBe(1);
  });

  it('compares a numeric string attribute as a number', () => {
    const { session, count } = goalSession([{ field: 'amount', op: 'gt', value: 9 }]);
    session.send(event('visit', { attributes: { amount: '10' } }));
    expect(count()).toBe(1);
  });

  it('needs every criterion to hold, and names the first that failed', () => {
    const { session, count } = goalSession([
      { field: 'context.app_name', op: 'eq', value: 'mobile' },
      { field: 'amount', op: 'gte', value: 20 },
    ]);
    const result = session.send(event('visit', { context: { app_name: 'mobile' }, attributes: { amount: 15 } }));
    expect(goalExplanation(result).detail).toBe('criteria not met: amount gte 20 failed (actual: 15)');
    expect(count()).toBe(0);
    session.send(event('visit', { context: { app_name: 'mobile' }, attributes: { amount: 20 } }));
    expect(count()).toBe(1);
  });

  it('passes ne on a missing field', () => {
    const { session, count } = goalSession([{ field: 'context.channel', op: 'ne', value: 'test' }]);
    session.send(event('visit'));
    expect(count()).toBe(1);
  });
});

/** One campaign targeted with these criteria; the state a customer gets for a `visit`. */
function targetedState(targeting: Criterion[], who: Partial<CustomerSnapshot>): string {
  const compiled = rules({
    campaigns: [campaign({ targeting })],
    tiers: [
      { id: 1, name: 'Silver', minPoints: 100 },
      { id: 2, name: 'Gold', minPoints: 500 },
    ],
    divisionAncestors: { 1: [1], 2: [1, 2] },
  });
  return new Session(compiled, customer(who)).send(event('visit')).state;
}

describe('Criteria on campaign targeting (read the customer)', () => {
  it.each<[string, Criterion, Partial<CustomerSnapshot>, Partial<CustomerSnapshot>]>([
    ['user.tags (list membership)', { field: 'user.tags', op: 'contains', value: 'vip' }, { tags: ['new', 'vip'] }, { tags: ['new'] }],
    ['user.tags (eq on any element)', { field: 'user.tags', op: 'eq', value: 'vip' }, { tags: ['vip'] }, { tags: [] }],
    ['user.tier (by name)', { field: 'user.tier', op: 'eq', value: 'Gold' }, { tierId: 2 }, { tierId: 1 }],
    ['user.tier in', { field: 'user.tier', op: 'in', value: ['Silver', 'Gold'] }, { tierId: 1 }, { tierId: null }],
    ['user.division_id', { field: 'user.division_id', op: 'eq', value: 2 }, { divisionId: 2 }, { divisionId: 1 }],
    ['user.attributes.<key>', { field: 'user.attributes.city', op: 'eq', value: 'Paris' }, { attributes: { city: 'Paris' } }, { attributes: { city: 'Lyon' } }],
    ['user.attributes.<key> missing', { field: 'user.attributes.plan', op: 'exists' }, { attributes: { plan: 'pro' } }, { attributes: {} }],
    ['user.lifetime_points', { field: 'user.lifetime_points', op: 'gte', value: 100 }, { lifetimePoints: 100 }, { lifetimePoints: 99 }],
    ['user.available_points', { field: 'user.available_points', op: 'lt', value: 50 }, { availablePoints: 49 }, { availablePoints: 50 }],
  ])('%s: qualifies a matching customer and answers not_targeted_to_campaign to another', (_label, criterion, matching, other) => {
    expect(targetedState([criterion], matching)).toBe('qualified');
    expect(targetedState([criterion], other)).toBe('not_targeted_to_campaign');
  });

  it('explains which targeting criterion failed', () => {
    const compiled = rules({ campaigns: [campaign({ targeting: [{ field: 'user.attributes.city', op: 'eq', value: 'Paris' }] })] });
    const result = new Session(compiled, customer({ attributes: { city: 'Lyon' } })).send(event('visit'));
    expect(result.explanation[0].campaigns[0].detail).toBe('campaign targeting: user.attributes.city eq "Paris" failed (actual: "Lyon")');
  });

  it('passes nin on a customer without that attribute', () => {
    expect(targetedState([{ field: 'user.attributes.country', op: 'nin', value: ['FR'] }], { attributes: {} })).toBe('qualified');
  });
});
