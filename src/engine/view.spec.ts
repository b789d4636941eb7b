import { behavior, campaign, event, goal, group, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import { behaviorView } from './view.js';

const compiled = rules({
  campaigns: [
    campaign({
      id: 10,
      behaviors: [
        behavior({
          id: 1,
          name: 'Visit three stores',
          points: 50,
          groups: [
            group([
              goal({ id: 11, name: 'store_visit', eventName: 'visit', type: 'unique', uniqueAttribute: 'store_id', eventCount: 3, points: 5, required: true }),
              goal({ id: 12, name: 'review', eventCount: 2, minTimeBetweenEvents: 60, minTimeBetweenEventsCount: 2 }),
            ], 1),
            group([goal({ id: 21, name: 'share' })]),
          ],
        }),
        behavior({
          id: 2,
          name: 'Weekly visit',
          period: 604_800,
          maxTimesAchievable: 4,
          maxTimesAchievablePerPeriod: 1,
          groups: [group([goal({ id: 31, name: 'daily_visit', eventName: 'visit', eventCount: 2, minTimeBetweenEvents: 3600, consecutive: true })])],
        }),
      ],
    }),
  ],
});

const view = (s: Session | null, id: number) => behaviorView(compiled.behaviors.get(id)!, s?.progress[id]);

describe('Behavior view (seed response shape)', () => {
  it('shows a composite behavior without progress, limits null when absent', () => {
    expect(view(null, 1)).toEqual({
      id: 1,
      campaign_id: 10,
      event_name: 'visit',
      type: 'composite',
      points: 50,
      achieved: 0,
      can_skip: false,
      skipped: 0,
      max_times_repeatable: null,
      max_times_repeatable_per_period: null,
      period: null,
      min_time_between_events: null,
      min_time_between_events_count: 1,
      consecutive: false,
      current_count: 0,
      total_count: 2,
      goals: {
        store_visit: {
          type: 'goal',
          id: 11,
          event_name: 'visit',
          points: 5,
          completed: false,
          required: true,
          earn_count: 3,
          group_id: 0,
          progress: {
            event_name: 'visit',
            type: 'unique',
            current_count: 0,
            total_count: 3,
            min_time_between_events: null,
            min_time_between_events_count: 1,
            consecutive: false,
          },
        },
        review: {
          type: 'goal',
          id: 12,
          event_name: 'review',
          points: 0,
          completed: false,
          required: false,
          earn_count: 2,
          group_id: 0,
          progress: {
            event_name: 'review',
            type: 'count',
            current_count: 0,
            total_count: 2,
            min_time_between_events: 60,
            min_time_between_events_count: 2,
            consecutive: false,
          },
        },
        share: {
          type: 'goal',
          id: 21,
          event_name: 'share',
          points: 0,
          completed: false,
          required: false,
          earn_count: 1,
          group_id: 1,
          progress: {
            event_name: 'share',
            type: 'count',
            current_count: 0,
            total_count: 1,
            min_time_between_events: null,
            min_time_between_events_count: 1,
            consecutive: false,
          },
        },
      },
      groups: {
        '0': { type: 'group', current_count: 0, total_count: 1, num_goals: 2, completed: false },
        '1': { type: 'group', current_count: 0, total_count: 1, num_goals: 1, completed: false },
      },
    });
  });

  it('shows the limits a behavior has', () => {
    expect(view(null, 2)).toMatchObject({
      max_times_repeatable: 4,
      max_times_repeatable_per_period: 1,
      period: 604_800,
      min_time_between_events: 3600,
      consecutive: true,
      total_count: 1,
      goals: { daily_visit: { progress: { consecutive: true, min_time_between_events: 3600 } } },
    });
  });

  it('shows goal counts and group counts from the progress, never the pivot values gathered', () => {
    const s = new Session(compiled);
    s.send([
      event('visit', { occurredAt: T0, attributes: { store_id: 's1' } }),
      event('visit', { occurredAt: T0 + MINUTE, attributes: { store_id: 's2' } }),
      event('review', { occurredAt: T0 + 2 * MINUTE }),
      event('share', { occurredAt: T0 + 3 * MINUTE }),
    ]);
    const v = view(s, 1);
    expect(v).toMatchObject({ achieved: 0, current_count: 1, total_count: 2 });
    expect(v.goals.store_visit).toMatchObject({ completed: false, progress: { current_count: 2, total_count: 3 } });
    // The values themselves stay in the progress: an answer never lists what a customer's state has gathered.
    expect(v.goals.store_visit.progress).not.toHaveProperty('pivots');
    expect(v.goals.review).toMatchObject({ completed: false, progress: { current_count: 1, total_count: 2 } });
    expect(v.goals.share).toMatchObject({ completed: true, progress: { current_count: 1, total_count: 1 } });
    expect(v.groups['0']).toMatchObject({ current_count: 0, completed: false });
    expect(v.groups['1']).toMatchObject({ current_count: 1, completed: true });
  });

  it('shows achieved and a fresh cycle after a completion', () => {
    const s = new Session(compiled);
    s.send([
      event('share', { occurredAt: T0 }),
      ...['s1', 's2', 's3'].map((store, i) => event('visit', { occurredAt: T0 + (i + 1) * MINUTE, attributes: { store_id: store } })),
    ]);
    const v = view(s, 1);
    expect(v).toMatchObject({ achieved: 1, current_count: 0, total_count: 2 });
    expect(v.goals.store_visit).toMatchObject({ completed: false, progress: { current_count: 0 } });
    expect(v.groups['0']).toMatchObject({ current_count: 0, completed: false });
  });
});
