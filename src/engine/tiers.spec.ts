import { behavior, campaign, customer, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import type { CustomerSnapshot, OutcomeRule } from './types.js';

const SILVER = 1;
const GOLD = 2;
const BRONZE = 3;

/** Behaviors: purchase (+10 points), earn (+600 points), vip (tier Gold outcome), silver (tier Silver outcome). */
function session(start: CustomerSnapshot, extraOutcomes: OutcomeRule[] = []) {
  const listen = (name: string) => [group([goal({ name })])];
  const compiled = rules({
    campaigns: [
      campaign({
        id: 10,
        behaviors: [
          behavior({ id: 1, name: 'Purchase', points: 10, groups: listen('purchase') }),
          behavior({ id: 2, name: 'Big spender', points: 600, groups: listen('earn') }),
          behavior({ id: 3, name: 'VIP', groups: listen('vip'), outcomes: [{ kind: 'tier', args: { name: 'Gold' } }] }),
          behavior({ id: 4, name: 'Silver club', groups: listen('silver'), outcomes: [{ kind: 'tier', args: { name: 'Silver' } }, ...extraOutcomes] }),
        ],
      }),
    ],
    // Deliberately not in rank order: tiers rank by min_points.
    tiers: [
      { id: GOLD, name: 'Gold', minPoints: 500 },
      { id: BRONZE, name: 'Bronze', minPoints: 0 },
      { id: SILVER, name: 'Silver', minPoints: 100 },
    ],
  });
  const s = new Session(compiled, start);
  let minute = 0;
  const send = (name: string) => s.send(event(name, { occurredAt: T0 + (minute += 1) * MINUTE }));
  return { s, send };
}

describe('Tiers', () => {
  it('Silver at 120, Gold by outcome, still Gold at 130 (semantics.md example)', () => {
    const { send } = session(customer({ lifetimePoints: 110, availablePoints: 110, tierId: BRONZE }));
    const silver = send('purchase');
    expect(silver.customer).toMatchObject({ lifetimePoints: 120, tierId: SILVER });
    expect(silver.tierChange).toMatchObject({ fromTierId: BRONZE, toTierId: SILVER, toTierName: 'Silver', direction: 'up', reason: 'points' });

    const gold = send('vip');
    expect(gold.customer).toMatchObject({ lifetimePoints: 120, tierId: GOLD });
    expect(gold.tierChange).toMatchObject({ fromTierId: SILVER, toTierId: GOLD, toTierName: 'Gold', direction: 'up', reason: 'outcome' });

    const later = send('purchase');
    expect(later.customer).toMatchObject({ lifetimePoints: 130, tierId: GOLD });
    expect(later.tierChange).toBeNull();
  });

  it('gives the highest tier whose min_points the lifetime points reach', () => {
    const { send } = session(customer({ lifetimePoints: 0 }));
    const result = send('earn');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toMatchObject({ fromTierId: null, toTierId: GOLD, toTierName: 'Gold', direction: 'up', reason: 'points' });
  });

  it('ranks by lifetime points, not available points', () => {
    const { send } = session(customer({ lifetimePoints: 495, availablePoints: 0, tierId: SILVER }));
    const result = send('purchase');
    expect(result.customer).toMatchObject({ availablePoints: 10, lifetimePoints: 505, tierId: GOLD });
  });

  it.each([
    ['no tier', null],
    ['Bronze', BRONZE],
  ])('reports the change from the tier the request started with (%s) when the tier moves twice', (_label, startTier) => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: startTier }), [{ kind: 'points', args: 600 }]);
    const result = send('silver');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toMatchObject({ fromTierId: startTier, toTierId: GOLD, toTierName: 'Gold', direction: 'up', reason: 'points' });
  });

  it('never lowers a tier when lifetime points are below it', () => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: GOLD }));
    const result = send('purchase');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toBeNull();
  });

  it('never lowers a tier when a tier outcome names a lower tier', () => {
    const { send } = session(customer({ lifetimePoints: 0, tierId: GOLD }));
    const result = send('silver');
    expect(result.customer.tierId).toBe(GOLD);
    expect(result.tierChange).toBeNull();
  });

  it('reports no tier change when the customer stays in the same tier', () => {
    const { send } = session(customer({ lifetimePoints: 200, tierId: SILVER }));
    const result = send('purchase');
    expect(result.customer.tierId).toBe(SILVER);
    expect(result.tierChange).toBeNull();
  });
});
