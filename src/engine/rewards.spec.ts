import { behaviorsInvolved } from './compile.js';
import { CORE_REWARDS, defineReward, rewards } from './rewards.js';
import { behavior, campaign, creative, customer, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { BehaviorRule, CampaignBudget, OutcomeRule } from './types.js';

/** A team's reward: a bonus of `points`, doubled for customers in the tier named `vip_tier`, with a "stamp" raised. */
const tierBonus = defineReward<{ points: number; vip_tier: string }>({
  name: 'tier_bonus',
  source: 'vip-club',
  description: 'A bonus, doubled for VIPs',
  apply(ctx, args) {
    const tier = ctx.rules.tiers.find((t) => t.id === ctx.customer.tierId);
    const vip = tier?.name === args.vip_tier;
    ctx.credit(vip ? args.points * 2 : args.points);
    ctx.raise('stamp', 1);
    ctx.note(vip ? `${args.vip_tier} bonus doubled` : 'bonus');
  },
  points: (args) => args.points * 2,
  raises: () => ['stamp'],
  creatives: () => [40],
});
const withTierBonus = rewards([...CORE_REWARDS.values(), tierBonus]);
const bonus: OutcomeRule = { kind: 'tier_bonus', args: { points: 7, vip_tier: 'Gold' } };

/** Campaign 10: behavior 1 completes on each visit and awards `outcomes`; behavior 2 counts stamps. */
function compiled(outcomes: OutcomeRule[], registry = withTierBonus, budget: CampaignBudget | null = null, extra: Partial<BehaviorRule> = {}) {
  const stamps = behavior({ id: 2, name: 'Stamps', groups: [group([goal({ id: 21, name: 'stamp', eventCount: 10 })])] });
  const visits = behavior({ id: 1, name: 'Visits', groups: [group([goal({ id: 11, name: 'visit' })])], outcomes, ...extra });
  return rules(
    {
      campaigns: [campaign({ id: 10, budget, behaviors: [visits, stamps] })],
      offers: [{ id: 12, name: 'Free coffee', points: 20 }],
      tiers: [{ id: 1, name: 'Gold', minPoints: 1000 }],
      creatives: [creative()],
    },
    { rewards: registry },
  );
}
const detail = (s: Session) => s.last.explanation[0].campaigns[0].behaviors[0].detail;

describe('reward kinds as a registry', () => {
  it('holds the built-ins, defined by core, under the names outcome_config stores them by', () => {
    expect([...CORE_REWARDS.keys()]).toEqual(['deal', 'ad_unit', 'points', 'event', 'tier']);
    expect([...CORE_REWARDS.values()].every((r) => r.source === 'core')).toBe(true);
  });

  it('refuses two reward kinds of one name, naming who defined each', () => {
    expect(() => rewards([...CORE_REWARDS.values(), { ...tierBonus, name: 'points' }])).toThrow('reward kind "points" is defined twice: by core and by vip-club');
  });

  it("a registered reward changes the result through its context: points, raised events, creatives, the explanation", () => {
    const s = new Session(compiled([bonus]), customer({ tierId: 1, lifetimePoints: 1000, availablePoints: 1000 }));
    const result = s.send(event('visit'));
    expect(result.credits).toEqual([{ eventIndex: 0, amount: 14, reason: 'outcome', campaignId: 10, behaviorId: 1, at: T0 }]);
    expect(result.customer.availablePoints).toBe(1014);
    expect(s.goalCount(2, 21)).toBe(1);
    expect(result.notifications.map((n) => n.creativeId)).toEqual([40]);
    expect(detail(s)).toContain('Gold bonus doubled');
  });

  it('reads the customer as the evaluation has them: without the tier, the bonus is not doubled', () => {
    const s = new Session(compiled([bonus]));
    expect(s.send(event('visit')).credits.map((c) => c.amount)).toEqual([7]);
    expect(detail(s)).toContain('; bonus');
  });

  it('the events a reward raises name the behaviors to lock and load', () => {
    expect(behaviorsInvolved(compiled([bonus]), ['visit'])).toEqual([1, 2]);
    expect(compiled([bonus]).behaviors.get(1)!.raises).toEqual(['stamp']);
  });

  it("a campaign budget counts a reward's points before the award is made", () => {
    const s = new Session(compiled([bonus], withTierBonus, { maxCompletions: null, maxPoints: 10 }));
    const result = s.send(event('visit'), { budgets: { 10: { completions: null, points: 10 } } });
    expect(result.state).toBe('budget_exhausted');
    expect(result.credits).toEqual([]);
    expect(detail(s)).toContain("this completion's 14 point(s) would take the campaign past its budget of 10 point(s)");
  });

  it('a reward credits no more than the points it declares, and raises only the events it declares', () => {
    const greedy = defineReward<{ points: number }>({
      name: 'greedy',
      source: 'vip-club',
      description: 'Declares less than it credits',
      apply(ctx, args) {
        ctx.credit(args.points);
        ctx.credit(args.points);
        ctx.raise('stamp', 1);
      },
      points: (args) => args.points + 2,
    });
    const s = new Session(compiled([{ kind: 'greedy', args: { points: 5 } }], rewards([...CORE_REWARDS.values(), greedy])));
    const result = s.send(event('visit'));
    expect(result.credits.map((c) => c.amount)).toEqual([5, 2]);
    expect(s.goalCount(2, 21)).toBe(0);
    expect(detail(s)).toContain('reward "greedy" credited 2 of 5 point(s): it declares no more');
    expect(detail(s)).toContain('reward "greedy" raised "stamp", which it does not declare: not raised');
  });

  it('asks for an after-commit effect with its payload, for the behavior and event that awarded it, only when it declares effects', () => {
    const coupon = (effects: boolean) =>
      defineReward<{ pool: string }>({ name: 'coupon', source: 'coupons', description: 'A coupon code from a pool', effects, apply: (ctx, args) => ctx.effect({ pool: args.pool }) });
    const s = new Session(compiled([{ kind: 'coupon', args: { pool: 'SUMMER' } }], rewards([...CORE_REWARDS.values(), coupon(true)])));
    s.send(event('visit'));
    const result = s.send(event('visit'));
    expect(result.effects).toEqual([{ eventIndex: 0, kind: 'coupon', campaignId: 10, behaviorId: 1, payload: { pool: 'SUMMER' } }]);
    expect(detail(s)).toContain('reward "coupon" of coupons; reward "coupon": after-commit effect asked for');
    const undeclared = new Session(compiled([{ kind: 'coupon', args: { pool: 'SUMMER' } }], rewards([...CORE_REWARDS.values(), coupon(false)])));
    expect(undeclared.send(event('visit')).effects).toEqual([]);
    expect(detail(undeclared)).toContain('reward "coupon" asked for an after-commit effect, which it does not declare: none');
  });

  it('an outcome whose kind is not registered awards nothing, says so, and the others are still awarded', () => {
    const s = new Session(compiled([bonus, { kind: 'points', args: 5 }], CORE_REWARDS));
    const result = s.send(event('visit'));
    expect(result.credits.map((c) => [c.amount, c.reason])).toEqual([[5, 'outcome']]);
    expect(s.goalCount(2, 21)).toBe(0);
    expect(result.notifications).toEqual([]);
    expect(detail(s)).toContain('outcome "tier_bonus" not awarded: no reward kind of that name is registered');
  });

  it('an offer or a tier deleted since the behavior was written is not awarded, and the explanation says so', () => {
    const s = new Session(compiled([{ kind: 'deal', args: { id: 99 } }, { kind: 'tier', args: { name: 'Platinum' } }]));
    const result = s.send(event('visit'));
    expect(result.offersIssued).toEqual([]);
    expect(result.tierChange).toBeNull();
    expect(detail(s)).toContain('offer 99 no longer exists; not issued; tier "Platinum" no longer exists; not awarded');
  });

  it('without an explanation asked for, rewards leave no notes and award the same', () => {
    const s = new Session(compiled([bonus]));
    const result = s.send(event('visit'), { explain: false });
    expect(result.explanation).toEqual([]);
    expect(result.credits.map((c) => c.amount)).toEqual([7]);
  });
});
