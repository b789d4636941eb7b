import type { Behavior } from '../../../database/entities/index.js';
import { behaviorRule } from './rule-set.mapper.js';

function stored(p: Partial<Behavior>): Behavior {
  return {
    id: 1,
    organizationId: 1,
    campaignId: 9,
    name: 'Visit three stores',
    tags: 'explorer| visitor |',
    points: 50,
    data: {},
    goalGroups: [],
    outcomeConfig: [],
    variant: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    deletedAt: null,
    ...p,
  };
}

const goal = {
  id: 11,
  name: 'store_visit',
  internal_event_name: null,
  event_count: 3,
  type: 'unique' as const,
  unique_attribute: 'store_id',
  points: 5,
  required: true,
  criteria: [],
  tags: null,
  data: {},
};

describe('stored behavior → engine rule', () => {
  it('reads caps and period from behavior data and splits pipe-joined tags', () => {
    const rule = behaviorRule(
      stored({ data: { period: 604800, max_times_achievable: 4, max_times_achievable_per_period: 1, use_same_period: true, extra: 'x' } }),
    );
    expect(rule).toMatchObject({
      tags: ['explorer', 'visitor'],
      period: 604800,
      maxTimesAchievable: 4,
      maxTimesAchievablePerPeriod: 1,
      maxTimesAchievablePerMonth: null,
      maxTimesAchievablePerYear: null,
      useSamePeriod: true,
    });
  });

  it('lets goals listen to internal_event_name, else their name, and inherit throttle and consecutive from the behavior', () => {
    const rule = behaviorRule(
      stored({
        data: { min_time_between_events: 60, consecutive: true },
        goalGroups: [
          { goal_count: null, goals: [goal, { ...goal, id: 12, name: 'b', internal_event_name: 'scan', data: { min_time_between_events: 5, min_time_between_events_count: 2, consecutive: false } }] },
        ],
      }),
    );
    expect(rule.groups).toEqual([
      {
        goalCount: 2,
        goals: [
          expect.objectContaining({ id: 11, eventName: 'store_visit', minTimeBetweenEvents: 60, minTimeBetweenEventsCount: 1, consecutive: true, uniqueAttribute: 'store_id' }),
          expect.objectContaining({ id: 12, eventName: 'scan', minTimeBetweenEvents: 5, minTimeBetweenEventsCount: 2, consecutive: false }),
        ],
      },
    ]);
  });

  it('maps every outcome form', () => {
    const at = '2026-01-05T10:00:00.000Z';
    const rule = behaviorRule(
      stored({
        outcomeConfig: [
          { id: 1, deal: { id: 12 }, created_at: at, updated_at: at },
          { id: 2, ad_unit: { id: 40 }, created_at: at, updated_at: at },
          { id: 3, points: 10, created_at: at, updated_at: at },
          { id: 4, event: { name: 'explorer_done', by: 2 }, created_at: at, updated_at: at },
          { id: 5, tier: { name: 'Gold' }, created_at: at, updated_at: at },
        ],
      }),
    );
    expect(rule.outcomes).toEqual([
      { kind: 'deal', args: { id: 12 } },
      { kind: 'ad_unit', args: { id: 40 } },
      { kind: 'points', args: 10 },
      { kind: 'event', args: { name: 'explorer_done', by: 2 } },
      { kind: 'tier', args: { name: 'Gold' } },
    ]);
  });
});
