import { evaluate } from './evaluate.js';
import { behavior, campaign, customer, DAY, event, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import type { CampaignRule, CustomerSnapshot } from './types.js';

/** The state of each campaign, in the order the first instance's explanation lists them. */
const explained = (result: ReturnType<Session['send']>) => result.explanation[0].campaigns.map((c) => [c.campaign_id, c.state]);

function sessionOf(campaigns: CampaignRule[], who: Partial<CustomerSnapshot> = {}) {
  return new Session(rules({ campaigns }), customer(who));
}

describe('Campaign states', () => {
  describe('each state of contract §7', () => {
    it('campaign_not_started when starts_at is after now', () => {
      const c = campaign({ startsAt: T0 + DAY });
      const result = sessionOf([c]).send(event('visit'));
      expect(result.state).toBe('campaign_not_started');
      expect(result.campaignStates).toEqual({ [c.id]: 'campaign_not_started' });
      expect(result.explanation[0].campaigns[0].detail).toBe('campaign starts at 2026-01-06T10:00:00.000Z');
      expect(result.progress).toEqual({});
    });

    it('campaign_over when ends_at is before now', () => {
      const c = campaign({ endsAt: T0 - DAY });
      const result = sessionOf([c]).send(event('visit'));
      expect(result.state).toBe('campaign_over');
      expect(result.explanation[0].campaigns[0].detail).toBe('campaign ended at 2026-01-04T10:00:00.000Z');
    });

    it('takes now from the request, not from the instance time', () => {
      const c = campaign({ endsAt: T0 });
      const session = sessionOf([c]);
      expect(session.send(event('visit', { occurredAt: T0 - DAY }), { now: T0 + 1 }).state).toBe('campaign_over');
      expect(session.send(event('visit', { occurredAt: T0 - DAY }), { now: T0 }).state).toBe('qualified');
    });

    it('not_targeted_to_campaign when targeting fails on the customer', () => {
      const c = campaign({ targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
      expect(sessionOf([c]).send(event('visit')).state).toBe('not_targeted_to_campaign');
      expect(sessionOf([c], { tags: ['vip'] }).send(event('visit')).state).toBe('qualified');
    });

    it('missing_prerequisites until the prerequisite campaign is completed, then qualified', () => {
      const first = campaign({ behaviors: [behavior({ groups: [group([goal({ name: 'signup' })])], maxTimesAchievable: 1 })] });
      const second = campaign({ prerequisiteCampaignIds: [first.id] });
      const session = sessionOf([first, second]);

      const before = session.send(event('visit'));
      expect(before.state).toBe('missing_prerequisites');
      expect(before.explanation[0].campaigns[0].detail).toBe(`prerequisite campaign(s) not completed: ${first.id}`);

      expect(session.send(event('signup')).completedCampaignIds).toEqual([first.id]);
      expect(session.customer.completedCampaignIds).toContain(first.id);
      expect(session.send(event('visit')).state).toBe('qualified');
    });

    it('events_not_qualified for an opt-in campaign the customer has not qualified for; nothing is processed', () => {
      const b = behavior({ points: 10 });
      const c = campaign({ optInRequired: true, behaviors: [b] });
      const session = sessionOf([c]);
      const result = session.send(event('visit'));
      expect(result.state).toBe('events_not_qualified');
      expect(result.qualifiedCampaignIds).toEqual([]);
      expect(session.customer.qualifiedCampaignIds).toEqual([]);
      expect(session.achieved(b.id)).toBe(0);
      expect(session.customer.availablePoints).toBe(0);
    });

    it('qualified with "qualify": true, which qualifies the customer first and processes the event', () => {
      const b = behavior({ points: 10 });
      const c = campaign({ optInRequired: true, behaviors: [b] });
      const session = sessionOf([c]);
      const result = session.send(event('visit'), { qualify: true });
      expect(result.state).toBe('qualified');
      expect(result.qualifiedCampaignIds).toEqual([c.id]);
      expect(session.customer.qualifiedCampaignIds).toEqual([c.id]);
      expect(session.achieved(b.id)).toBe(1);
      expect(session.customer.availablePoints).toBe(10);

      const later = session.send(event('visit'));
      expect(later.state).toBe('qualified');
      expect(later.qualifiedCampaignIds).toEqual([]);
      expect(session.achieved(b.id)).toBe(2);
    });

    it('qualifies an opt-in customer once, even for several instances of one request', () => {
      const c = campaign({ optInRequired: true });
      const session = sessionOf([c]);
      const result = session.send([event('visit'), event('visit')], { qualify: true });
      expect(result.qualifiedCampaignIds).toEqual([c.id]);
      expect(session.customer.qualifiedCampaignIds).toEqual([c.id]);
    });

    // Worked example: one behavior capped at 1 completion; the first visit completes it, the second is capped.
    it('reached_frequency_cap once every listening behavior is at its total cap (worked example)', () => {
      const b = behavior({ maxTimesAchievable: 1 });
      const c = campaign({ behaviors: [b] });
      const session = sessionOf([c]);
      expect(session.send(event('visit')).state).toBe('qualified');
      expect(session.achieved(b.id)).toBe(1);
      const second = session.send(event('visit', { occurredAt: T0 + 1000 }));
      expect(second.state).toBe('reached_frequency_cap');
      expect(second.campaignStates).toEqual({ [c.id]: 'reached_frequency_cap' });
      expect(session.achieved(b.id)).toBe(1);
    });

    it('reached_frequency_period_cap when the listening behavior is at a monthly cap', () => {
      const b = behavior({ maxTimesAchievablePerMonth: 1 });
      const session = sessionOf([campaign({ behaviors: [b] })]);
      expect(session.send(event('visit')).state).toBe('qualified');
      expect(session.send(event('visit', { occurredAt: T0 + DAY })).state).toBe('reached_frequency_period_cap');
      expect(session.send(event('visit', { occurredAt: T0 + 30 * DAY })).state).toBe('qualified');
      expect(session.achieved(b.id)).toBe(2);
    });

    it('reached_frequency_period_cap when every listening behavior is capped and one only periodically', () => {
      const once = behavior({ maxTimesAchievable: 1 });
      const monthly = behavior({ maxTimesAchievablePerMonth: 1 });
      const session = sessionOf([campaign({ behaviors: [once, monthly] })]);
      expect(session.send(event('visit')).state).toBe('qualified');
      expect([session.achieved(once.id), session.achieved(monthly.id)]).toEqual([1, 1]);
      expect(session.send(event('visit', { occurredAt: T0 + DAY })).state).toBe('reached_frequency_period_cap');
    });

    it('qualified while one listening behavior is still below its caps', () => {
      const once = behavior({ maxTimesAchievable: 1 });
      const open = behavior({ groups: [group([goal({ eventCount: 5 })])] });
      const session = sessionOf([campaign({ behaviors: [once, open] })]);
      session.send(event('visit'));
      expect(session.send(event('visit', { occurredAt: T0 + DAY })).state).toBe('qualified');
    });

    it('ignores the caps of behaviors that do not listen to the event', () => {
      const capped = behavior({ maxTimesAchievable: 1 });
      const other = behavior({ groups: [group([goal({ name: 'share', eventCount: 5 })])] });
      const session = sessionOf([campaign({ behaviors: [capped, other] })]);
      session.send(event('visit'));
      expect(session.send(event('share')).state).toBe('qualified');
      expect(session.send(event('visit')).state).toBe('reached_frequency_cap');
    });
  });

  describe('order of the checks', () => {
    it('answers campaign_not_started for a campaign both not started and not targeted', () => {
      const c = campaign({ startsAt: T0 + DAY, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
      expect(sessionOf([c]).send(event('visit')).state).toBe('campaign_not_started');
    });

    it('answers campaign_over for a campaign both over and not targeted', () => {
      const c = campaign({ endsAt: T0 - DAY, targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
      expect(sessionOf([c]).send(event('visit')).state).toBe('campaign_over');
    });

    it('answers not_targeted_to_campaign before missing_prerequisites', () => {
      const c = campaign({ prerequisiteCampaignIds: [999_999], targeting: [{ field: 'user.tier', op: 'eq', value: 'Gold' }] });
      expect(sessionOf([c]).send(event('visit')).state).toBe('not_targeted_to_campaign');
    });

    it('answers missing_prerequisites before events_not_qualified, even with "qualify": true', () => {
      const c = campaign({ prerequisiteCampaignIds: [999_999], optInRequired: true });
      expect(sessionOf([c]).send(event('visit')).state).toBe('missing_prerequisites');
      expect(sessionOf([c]).send(event('visit'), { qualify: true }).state).toBe('missing_prerequisites');
    });

    it('answers events_not_qualified before reached_frequency_cap', () => {
      const b = behavior({ maxTimesAchievable: 1 });
      const c = campaign({ optInRequired: true, behaviors: [b] });
      const compiled = rules({ campaigns: [c] });
      const first = evaluate({ rules: compiled, customer: customer({ qualifiedCampaignIds: [c.id] }), progress: {}, events: [event('visit')], now: T0, multiOrgEnabled: false });
      expect(first.progress[b.id].achieved).toBe(1);

      // Same progress, but a customer who has not qualified (say, the opt-in was withdrawn).
      const later = evaluate({ rules: compiled, customer: customer(), progress: first.progress, events: [event('visit')], now: T0, multiOrgEnabled: false });
      expect(later.state).toBe('events_not_qualified');
    });

    it('answers reached_frequency_cap before reached_frequency_period_cap for a behavior at both caps', () => {
      const b = behavior({ maxTimesAchievable: 1, maxTimesAchievablePerMonth: 1 });
      const session = sessionOf([campaign({ behaviors: [b] })]);
      session.send(event('visit'));
      expect(session.send(event('visit')).state).toBe('reached_frequency_cap');
    });
  });

  describe('multi-org', () => {
    // Root 1; 2 under 1; 3 under 2; 4 under 1 (a sibling of 2).
    const divisionAncestors = { 1: [1], 2: [1, 2], 3: [1, 2, 3], 4: [1, 4] };
    const multiOrg = { multiOrgEnabled: true };

    function world(customerDivision: number) {
      const root = campaign({ divisionId: 1 });
      const parent = campaign({ divisionId: 2 });
      const own = campaign({ divisionId: 3 });
      const sibling = campaign({ divisionId: 4 });
      const global = campaign({ divisionId: null });
      const session = new Session(rules({ campaigns: [root, parent, own, sibling, global], divisionAncestors }), customer({ divisionId: customerDivision }));
      return { root, parent, own, sibling, global, session };
    }

    it("lets the campaigns of the event's division, of its ancestors and without a division see it; not a sibling's", () => {
      const { root, parent, own, sibling, global, session } = world(3);
      const result = session.send(event('visit', { context: { division_id: 3 } }), multiOrg);
      expect(result.campaignStates).toEqual({ [root.id]: 'qualified', [parent.id]: 'qualified', [own.id]: 'qualified', [global.id]: 'qualified' });
      expect(result.campaignStates).not.toHaveProperty(String(sibling.id));
      expect(result.explanation[0].campaigns.map((c) => c.campaign_id)).not.toContain(sibling.id);
      expect(session.achieved(sibling.behaviors[0].id)).toBe(0);
      expect(session.achieved(own.behaviors[0].id)).toBe(1);
    });

    it("does not let a child division's campaign see an event of its parent division", () => {
      const { own, parent, session } = world(2);
      const result = session.send(event('visit', { context: { division_id: 2 } }), multiOrg);
      expect(result.campaignStates[parent.id]).toBe('qualified');
      expect(result.campaignStates).not.toHaveProperty(String(own.id));
    });

    it("answers not_targeted_to_campaign when the event's division is not the customer's", () => {
      const { parent, own, session } = world(2);
      const result = session.send(event('visit', { context: { division_id: 3 } }), multiOrg);
      expect(result.state).toBe('not_targeted_to_campaign');
      expect(result.campaignStates[parent.id]).toBe('not_targeted_to_campaign');
      expect(result.campaignStates[own.id]).toBe('not_targeted_to_campaign');
      const entry = result.explanation[0].campaigns.find((c) => c.campaign_id === parent.id)!;
      expect(entry.detail).toBe("event division 3 differs from the customer's division 2");
      expect(session.achieved(parent.behaviors[0].id)).toBe(0);
    });

    it('takes the root division for an event without division_id', () => {
      const rootCustomer = world(1);
      const result = rootCustomer.session.send(event('visit'), multiOrg);
      expect(result.campaignStates).toEqual({ [rootCustomer.root.id]: 'qualified', [rootCustomer.global.id]: 'qualified' });

      const childCustomer = world(2);
      const child = childCustomer.session.send(event('visit'), multiOrg);
      expect(child.campaignStates).toEqual({ [childCustomer.root.id]: 'not_targeted_to_campaign', [childCustomer.global.id]: 'not_targeted_to_campaign' });
    });

    it('lets every campaign see every event when multi-org is off', () => {
      const { sibling, session } = world(3);
      const result = session.send(event('visit', { context: { division_id: 3 } }));
      expect(result.campaignStates[sibling.id]).toBe('qualified');
      expect(Object.keys(result.campaignStates)).toHaveLength(5);
    });
  });

  describe('overall state of a request', () => {
    it('is qualified if any campaign qualified', () => {
      const late = campaign({ startsAt: T0 + DAY });
      const open = campaign();
      const result = sessionOf([late, open]).send(event('visit'));
      expect(result.state).toBe('qualified');
      expect(result.campaignStates).toEqual({ [late.id]: 'campaign_not_started', [open.id]: 'qualified' });
    });

    it('is qualified if a campaign qualified for any instance, even when a later one is capped', () => {
      const c = campaign({ behaviors: [behavior({ maxTimesAchievable: 1 })] });
      const result = sessionOf([c]).send([event('visit'), event('visit')]);
      expect(result.explanation.map((e) => e.campaigns[0].state)).toEqual(['qualified', 'reached_frequency_cap']);
      expect(result.state).toBe('qualified');
      expect(result.campaignStates[c.id]).toBe('qualified');
    });

    it('is otherwise the first failure met', () => {
      const late = campaign({ startsAt: T0 + DAY });
      const over = campaign({ endsAt: T0 - DAY });
      const first = sessionOf([late, over]).send(event('visit'));
      expect(explained(first)).toEqual([
        [late.id, 'campaign_not_started'],
        [over.id, 'campaign_over'],
      ]);
      expect(first.state).toBe('campaign_not_started');
      expect(sessionOf([over, late]).send(event('visit')).state).toBe('campaign_over');
    });

    it('is events_not_qualified when no campaign listens to the event', () => {
      const result = sessionOf([campaign()]).send(event('purchase'));
      expect(result.state).toBe('events_not_qualified');
      expect(result.campaignStates).toEqual({});
      expect(result.explanation[0].detail).toBe('no live campaign has a goal listening to this event name');
    });
  });

  describe('which campaigns are evaluated', () => {
    it.each(['draft', 'inreview', 'paused', 'completed'] as const)('not a %s campaign', (status) => {
      const b = behavior();
      const result = sessionOf([campaign({ status, behaviors: [b] })]).send(event('visit'));
      expect(result.campaignStates).toEqual({});
      expect(result.explanation[0].campaigns).toEqual([]);
      expect(result.state).toBe('events_not_qualified');
      expect(result.progress).toEqual({});
    });

    it('only the campaign a scoped request names', () => {
      const named = campaign();
      const other = campaign();
      const session = sessionOf([named, other]);
      const result = session.send(event('visit'), { campaignId: named.id });
      expect(result.campaignStates).toEqual({ [named.id]: 'qualified' });
      expect(session.achieved(named.behaviors[0].id)).toBe(1);
      expect(session.achieved(other.behaviors[0].id)).toBe(0);
    });

    it('the campaign a scoped request names even when none of its goals listens to the event', () => {
      const late = campaign({ startsAt: T0 + DAY, behaviors: [behavior({ groups: [group([goal({ name: 'share' })])] })] });
      const result = sessionOf([late, campaign()]).send(event('visit'), { campaignId: late.id });
      expect(result.campaignStates).toEqual({ [late.id]: 'campaign_not_started' });
      expect(result.state).toBe('campaign_not_started');
    });
  });
});
