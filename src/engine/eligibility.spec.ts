import { checkEligibility } from './eligibility.js';
import { behavior, campaign, customer, DAY, event, goal, group, rules, T0 } from './spec-fixtures.js';

describe('Eligibility check (V1 qualify=true)', () => {
  const compiled = rules({
    campaigns: [
      campaign({ id: 1, optInRequired: true, behaviors: [behavior({ id: 11, groups: [group([goal({ name: 'visit' })])] })] }),
      campaign({ id: 2, startsAt: T0 + DAY, behaviors: [behavior({ id: 21, groups: [group([goal({ name: 'visit' })])] })] }),
      campaign({ id: 3, behaviors: [behavior({ id: 31, groups: [group([goal({ name: 'share' })])] })] }),
    ],
  });
  const input = { rules: compiled, customer: customer(), progress: {}, now: T0, multiOrgEnabled: false };

  it('lists the state of every live campaign listening to the event, and the first failure when none qualifies', () => {
    expect(checkEligibility({ ...input, events: [event('visit')] })).toEqual({
      state: 'events_not_qualified',
      campaigns: [
        expect.objectContaining({ campaignId: 1, state: 'events_not_qualified' }),
        expect.objectContaining({ campaignId: 2, state: 'campaign_not_started' }),
      ],
      extensionFailures: [],
    });
  });

  it('is qualified when one campaign qualifies; body qualify opts in', () => {
    expect(checkEligibility({ ...input, events: [event('visit')], qualify: true }).state).toBe('qualified');
    expect(checkEligibility({ ...input, events: [event('share')] }).state).toBe('qualified');
  });

  it('checks only the named campaign when scoped, listening or not', () => {
    expect(checkEligibility({ ...input, events: [event('visit')], campaignId: 3 })).toEqual({
      state: 'qualified',
      campaigns: [expect.objectContaining({ campaignId: 3, state: 'qualified' })],
      extensionFailures: [],
    });
  });

  it('answers events_not_qualified when nothing listens', () => {
    expect(checkEligibility({ ...input, events: [event('unknown')] })).toEqual({ state: 'events_not_qualified', campaigns: [], extensionFailures: [] });
  });

  it('changes nothing', () => {
    const c = customer();
    checkEligibility({ ...input, customer: c, events: [event('visit')], qualify: true });
    expect(c.qualifiedCampaignIds).toEqual([]);
  });
});
