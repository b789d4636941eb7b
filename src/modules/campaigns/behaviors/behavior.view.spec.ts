import { describe, expect, it } from '@jest/globals';
import { behaviorView, goalsCsv } from './behavior.view.js';
import type { StoredGoal, StoredOutcome } from '../../../database/entities/behavior.entity.js';
import { Behavior } from '../../../database/entities/index.js';

const goal = (id: number, name: string, internal: string | null): StoredGoal => ({
  id,
  name,
  internal_event_name: internal,
  event_count: 2,
  type: 'count',
  unique_attribute: null,
  points: 0,
  required: false,
  criteria: [],
  tags: null,
  data: {},
});

describe('goalsCsv', () => {
  it('answers one line per goal, quoting what needs quotes and neutralising formula characters', () => {
    const csv = goalsCsv([{ goal_count: null, goals: [goal(1, 'visit', null), goal(2, '=HYPERLINK("x")', '@sum'), goal(3, 'a, b', 'buy')] }]);
    expect(csv).toBe('goal_id,name,internal_event_name,event_count\n1,visit,,2\n2,"\'=HYPERLINK(""x"")",\'@sum,2\n3,"a, b",buy,2\n');
  });
});

describe('behaviorView: outcomes', () => {
  const at = '2026-01-05T10:00:00.000Z';
  const stored = (outcomeConfig: StoredOutcome[]) =>
    Object.assign(new Behavior(), { id: 1, organizationId: 7, campaignId: 3, name: 'Visits', tags: null, points: 0, data: {}, goalGroups: [], outcomeConfig, createdAt: new Date(at), updatedAt: new Date(at), deletedAt: null });

  it("answers a built-in outcome's model, and an extension's reward as an Extension outcome holding its arguments", () => {
    const view = behaviorView(
      stored([
        { id: 1, points: 5, created_at: at, updated_at: at },
        { id: 2, coupon: { pool: 'spring' }, created_at: at, updated_at: at } as unknown as StoredOutcome,
      ]),
      new Map(),
    );
    expect(view.outcomes.map((o) => [o.model_type, o.model_id])).toEqual([
      ['Points', null],
      ['Extension', null],
    ]);
    expect(view.outcome_config).toEqual([
      { id: 1, points: 5 },
      { id: 2, coupon: { pool: 'spring' } },
    ]);
  });
});
