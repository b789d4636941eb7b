import fc from 'fast-check';
import { behavior, campaign, customer, DAY, event, goal, group, HOUR, MINUTE, rules, Session, T0 } from './spec-fixtures.js';
import { startOfLocalDay } from './time.js';
import type { EventInstance } from './types.js';

/** One campaign exercising every kind of goal, caps, outcomes and tiers, for properties over random event streams. */
const compiled = rules({
  campaigns: [
    campaign({
      id: 1,
      startsAt: T0 - DAY,
      endsAt: T0 + 400 * DAY,
      behaviors: [
        behavior({ id: 11, name: 'Three visits', points: 10, maxTimesAchievable: 5, groups: [group([goal({ id: 111, name: 'visit', eventCount: 3 })])] }),
        behavior({
          id: 12,
          name: 'Three stores a week',
          points: 25,
          period: 7 * 86_400,
          maxTimesAchievablePerPeriod: 1,
          groups: [group([goal({ id: 121, name: 'visit', type: 'unique', uniqueAttribute: 'store', eventCount: 3 })])],
          outcomes: [{ kind: 'event', args: { name: 'bonus', by: 1 } }],
        }),
        behavior({
          id: 13,
          name: 'Streak',
          points: 7,
          maxTimesAchievablePerMonth: 2,
          groups: [group([goal({ id: 131, name: 'checkin', eventCount: 3, consecutive: true })])],
        }),
        behavior({
          id: 14,
          name: 'Throttled shares',
          points: 3,
          maxTimesAchievablePerYear: 4,
          groups: [group([goal({ id: 141, name: 'share', eventCount: 2, minTimeBetweenEvents: 3600, minTimeBetweenEventsCount: 1 })])],
          outcomes: [{ kind: 'deal', args: { id: 1 } }, { kind: 'tier', args: { name: 'Gold' } }],
        }),
        behavior({ id: 15, name: 'Bonus', points: 1, groups: [group([goal({ id: 151, name: 'bonus' })])], tags: ['bonus'] }),
      ],
    }),
  ],
  offers: [{ id: 1, name: 'Coffee', points: 4 }],
  tiers: [
    { id: 1, name: 'Silver', minPoints: 30 },
    { id: 2, name: 'Gold', minPoints: 1000 },
  ],
});

const NAMES = ['visit', 'checkin', 'share', 'bonus', 'unknown'];

const instance = (days: number) =>
  fc
    .record({
      name: fc.constantFrom(...NAMES),
      count: fc.integer({ min: -2, max: 6 }),
      store: fc.option(fc.constantFrom('s1', 's2', 's3', 's4'), { nil: undefined }),
      minutes: fc.integer({ min: 0, max: days * 24 * 60 }),
    })
    .map(
      ({ name, count, store, minutes }): EventInstance =>
        event(name, { count, attributes: store === undefined ? {} : { store }, occurredAt: T0 + minutes * MINUTE }),
    );

/** Streams in time order, as a customer produces them. */
const streamOver = (days: number, maxLength: number, minLength = 0) =>
  fc.array(instance(days), { minLength, maxLength }).map((list) => [...list].sort((a, b) => a.occurredAt - b.occurredAt));
const stream = streamOver(90, 60);
/** Dense streams: enough completions in one week or month to press against the caps. */
const dense = streamOver(40, 250, 150);
const NOW = T0 + 200 * DAY;

function replay(events: EventInstance[], chunks: number[] = [events.length]): Session {
  const session = new Session(compiled, customer());
  let start = 0;
  for (const size of chunks) {
    const part = events.slice(start, start + size);
    start += size;
    if (part.length) session.send(part, { now: NOW });
  }
  if (start < events.length) session.send(events.slice(start), { now: NOW });
  return session;
}

describe('engine properties', () => {
  it('points and lifetime points never decrease through events', () => {
    fc.assert(
      fc.property(stream, (events) => {
        const session = new Session(compiled, customer());
        let available = 0;
        let lifetime = 0;
        for (const e of events) {
          session.send(e, { now: NOW });
          expect(session.customer.availablePoints).toBeGreaterThanOrEqual(available);
          expect(session.customer.lifetimePoints).toBeGreaterThanOrEqual(lifetime);
          available = session.customer.availablePoints;
          lifetime = session.customer.lifetimePoints;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('achieved never exceeds a cap', () => {
    fc.assert(
      fc.property(dense, (events) => {
        const session = new Session(compiled, customer());
        const weekly = new Map<number, number>();
        const monthly = new Map<string, number>();
        for (const e of events) {
          const result = session.send(e, { now: NOW });
          for (const c of result.completions) {
            if (c.behaviorId === 12) {
              const week = Math.floor((c.at - (T0 - DAY)) / (7 * DAY));
              weekly.set(week, (weekly.get(week) ?? 0) + 1);
            }
            if (c.behaviorId === 13) {
              const month = new Date(c.at).toISOString().slice(0, 7);
              monthly.set(month, (monthly.get(month) ?? 0) + 1);
            }
          }
        }
        expect(session.achieved(11)).toBeLessThanOrEqual(5);
        for (const n of weekly.values()) expect(n).toBeLessThanOrEqual(1);
        for (const n of monthly.values()) expect(n).toBeLessThanOrEqual(2);
        expect(session.achieved(14)).toBeLessThanOrEqual(4);
      }),
      { numRuns: 200 },
    );
  });

  it('the same events in the same order always give the same state', () => {
    fc.assert(
      fc.property(stream, (events) => {
        const a = replay(events);
        const b = replay(events);
        expect(b.customer).toEqual(a.customer);
        expect(b.progress).toEqual(a.progress);
        expect(b.last?.explanation).toEqual(a.last?.explanation);
      }),
      { numRuns: 100 },
    );
  });

  it('splitting a list of events into several calls gives the same final state as one call', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 10 }), (events, chunks) => {
        const whole = replay(events);
        const split = replay(events, chunks);
        expect(split.customer).toEqual(whole.customer);
        expect(split.progress).toEqual(whole.progress);
      }),
      { numRuns: 200 },
    );
  });

  it('a customer in any time zone gets the same streak for the same local days', () => {
    const zones = ['UTC', 'America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Pacific/Auckland', 'America/St_Johns', 'Pacific/Kiritimati'];
    const days = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 25 }).map((d) => [...d].sort((a, b) => a - b));
    // Hours 0-22 exist on every local day, also on the 23-hour day of a spring-forward change (startOfLocalDay + 23 h
    // would already be the next local day there).
    fc.assert(
      fc.property(days, fc.constantFrom(...zones), fc.integer({ min: 0, max: 22 }), (localDays, zone, hour) => {
        const at = (tz: string, d: number) => {
          const date = new Date(Date.UTC(2026, 2, 1 + d));
          return startOfLocalDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), tz) + hour * HOUR;
        };
        const streak = (tz: string) => {
          const session = new Session(compiled, customer({ timeZone: tz }));
          for (const d of localDays) session.send(event('checkin', { occurredAt: at(tz, d) }), { now: NOW });
          return { count: session.goalCount(13, 131), achieved: session.achieved(13) };
        };
        expect(streak(zone)).toEqual(streak('UTC'));
      }),
      { numRuns: 200 },
    );
  });
});
