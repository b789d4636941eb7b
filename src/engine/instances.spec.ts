import { instanceFromV2, instancesFromV1 } from './instances.js';
import { behavior, campaign, customer, goal, group, rules, Session, T0 } from './spec-fixtures.js';
import { localDay } from './time.js';

describe('Event instances', () => {
  describe('V1 events map', () => {
    it('turns an integer into one instance with that count and no attributes', () => {
      expect(instancesFromV1({ visit: 3 }, T0)).toEqual([{ name: 'visit', count: 3, attributes: {}, context: {}, occurredAt: T0, day: null }]);
    });

    it('turns an object into one instance of count 1 whose attributes are the object', () => {
      expect(instancesFromV1({ visit: { store_id: 's1', amount: 12.5 } }, T0)).toEqual([
        { name: 'visit', count: 1, attributes: { store_id: 's1', amount: 12.5 }, context: {}, occurredAt: T0, day: null },
      ]);
    });

    it('turns an array into one instance per element, in order, integers and objects alike', () => {
      const instances = instancesFromV1({ visit: [{ store_id: 's1' }, { store_id: 's2' }, 4] }, T0);
      expect(instances.map((i) => [i.count, i.attributes])).toEqual([
        [1, { store_id: 's1' }],
        [1, { store_id: 's2' }],
        [4, {}],
      ]);
    });

    it('keeps the order of the event names of the map', () => {
      expect(instancesFromV1({ visit: 1, purchase: { sku: 'a' }, share: 2 }, T0).map((i) => i.name)).toEqual(['visit', 'purchase', 'share']);
    });

    it('splits a context member off the attributes into the instance context', () => {
      const [instance] = instancesFromV1({ visit: { store_id: 's1', context: { app_name: 'mobile', division_id: 3 } } }, T0);
      expect(instance.attributes).toEqual({ store_id: 's1' });
      expect(instance.attributes).not.toHaveProperty('context');
      expect(instance.context).toEqual({ app_name: 'mobile', division_id: 3 });
    });

    it('gives every element of an array its own context', () => {
      const instances = instancesFromV1({ visit: [{ context: { app_name: 'web' } }, { store_id: 's2' }] }, T0);
      expect(instances.map((i) => i.context)).toEqual([{ app_name: 'web' }, {}]);
    });

    it('stamps every instance with the request time', () => {
      const at = T0 + 123_456;
      expect(instancesFromV1({ visit: [1, { a: 1 }] }, at).map((i) => i.occurredAt)).toEqual([at, at]);
    });

    it('yields nothing for an empty map', () => {
      expect(instancesFromV1({}, T0)).toEqual([]);
    });
  });

  describe('day', () => {
    it('is the occurred_on attribute when it is a YYYY-MM-DD date', () => {
      const [instance] = instancesFromV1({ visit: { occurred_on: '2026-01-02' } }, T0);
      expect(instance.day).toBe('2026-01-02');
    });

    it.each(['2026-02-30', '2026-13-01', '2026-1-2', '2026-01-02T10:00:00Z', '', 'yesterday'])('is null for the invalid occurred_on %j', (value) => {
      const [instance] = instancesFromV1({ visit: { occurred_on: value } }, T0);
      expect(instance.day).toBeNull();
    });

    it('is null for a non-string occurred_on', () => {
      const [instance] = instancesFromV1({ visit: { occurred_on: 20260102 } }, T0);
      expect(instance.day).toBeNull();
    });

    it('is null for integer-form instances (the engine takes the customer-local date)', () => {
      expect(instancesFromV1({ visit: 2 }, T0)[0].day).toBeNull();
    });

    // Worked example: occurred_at 2026-01-06T03:00Z for a customer in America/New_York is local day 2026-01-05.
    it('is otherwise the customer-local date of occurred_at (worked example)', () => {
      const at = Date.UTC(2026, 0, 6, 3, 0);
      expect(localDay(at, 'America/New_York')).toBe('2026-01-05');

      const streak = goal({ consecutive: true, eventCount: 5 });
      const session = new Session(rules({ campaigns: [campaign({ behaviors: [behavior({ groups: [group([streak])] })] })] }), customer({ timeZone: 'America/New_York' }));
      const result = session.send(instancesFromV1({ visit: 1 }, at));
      expect(result.explanation[0].campaigns[0].behaviors[0].goals[0].detail).toContain('streak started on 2026-01-05');
    });
  });

  describe('V2 event object', () => {
    it('is one instance whose count defaults to 1', () => {
      expect(instanceFromV2({ name: 'visit', occurredAt: T0 })).toEqual({ name: 'visit', count: 1, attributes: {}, context: {}, occurredAt: T0, day: null });
    });

    it('takes its count from by', () => {
      expect(instanceFromV2({ name: 'visit', by: 4, occurredAt: T0 }).count).toBe(4);
    });

    it('carries its context', () => {
      expect(instanceFromV2({ name: 'visit', occurredAt: T0, context: { app_name: 'mobile' } }).context).toEqual({ app_name: 'mobile' });
    });
  });

  describe('evaluation order', () => {
    it('evaluates the instances of one request in the order given, each seeing the state the previous one left', () => {
      const target = goal({ eventCount: 3 });
      const b = behavior({ groups: [group([target])], maxTimesAchievable: 1 });
      const session = new Session(rules({ campaigns: [campaign({ behaviors: [b] })] }));
      const result = session.send(instancesFromV1({ visit: [2, 5, 1] }, T0));
      const states = result.explanation.map((e) => e.campaigns[0].state);
      expect(states).toEqual(['qualified', 'qualified', 'reached_frequency_cap']);
      expect(session.achieved(b.id)).toBe(1);
    });
  });
});
