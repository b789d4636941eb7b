import { describe, expect, it } from '@jest/globals';
import { goalsCsv } from './behavior.view.js';
import type { StoredGoal } from '../../../database/entities/behavior.entity.js';

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
