import { dayNumber, isDay, localDay, localParts, startOfLocalDay, startOfNextLocalMonth, startOfNextLocalYear } from './time.js';

const utc = (iso: string) => Date.parse(iso);
const daysBetween = (a: number, b: number, zone: string) => dayNumber(localDay(b, zone)) - dayNumber(localDay(a, zone));

describe('Customer time', () => {
  describe('localDay', () => {
    // Worked example (Event instances): 2026-01-06T03:00Z is 2026-01-05 in New York.
    it('gives 2026-01-05 for 2026-01-06T03:00Z in America/New_York (worked example)', () => {
      expect(localDay(utc('2026-01-06T03:00:00Z'), 'America/New_York')).toBe('2026-01-05');
    });

    it.each([
      ['UTC', '2026-01-05T23:59:59Z', '2026-01-05'],
      ['UTC', '2026-01-06T00:00:00Z', '2026-01-06'],
      ['America/New_York', '2026-01-06T04:59:59Z', '2026-01-05'],
      ['America/New_York', '2026-01-06T05:00:00Z', '2026-01-06'],
      ['America/New_York', '2026-07-06T04:00:00Z', '2026-07-06'],
      ['Asia/Kolkata', '2026-01-05T18:29:59Z', '2026-01-05'],
      ['Asia/Kolkata', '2026-01-05T18:30:00Z', '2026-01-06'],
      ['Asia/Tokyo', '2026-01-05T15:00:00Z', '2026-01-06'],
      ['Europe/Paris', '2026-01-05T23:00:00Z', '2026-01-06'],
      ['Europe/Paris', '2026-07-05T22:00:00Z', '2026-07-06'],
      ['Pacific/Kiritimati', '2026-01-05T10:00:00Z', '2026-01-06'],
      ['Pacific/Pago_Pago', '2026-01-05T10:00:00Z', '2026-01-04'],
      ['America/New_York', '2027-01-01T04:30:00Z', '2026-12-31'],
      ['Asia/Kolkata', '2026-12-31T19:00:00Z', '2027-01-01'],
    ])('in %s, %s is %s', (zone, instant, day) => {
      expect(localDay(utc(instant), zone)).toBe(day);
    });

    it('answers the same instant asked again, in one zone after another, with each zone its own day', () => {
      const instant = utc('2026-01-05T20:00:00Z');
      for (let i = 0; i < 3; i += 1) {
        expect(localDay(instant, 'America/New_York')).toBe('2026-01-05');
        expect(localDay(instant, 'Asia/Tokyo')).toBe('2026-01-06');
      }
    });
  });

  describe('dayNumber', () => {
    it('counts calendar days between two dates', () => {
      expect(dayNumber('2026-01-06') - dayNumber('2026-01-05')).toBe(1);
      expect(dayNumber('2026-01-05') - dayNumber('2026-01-05')).toBe(0);
      expect(dayNumber('2026-01-05') - dayNumber('2026-01-08')).toBe(-3);
      expect(dayNumber('1970-01-02')).toBe(1);
    });

    it('takes a year end as one day (12-31 → 01-01)', () => {
      expect(dayNumber('2027-01-01') - dayNumber('2026-12-31')).toBe(1);
    });

    it('knows month lengths and leap years', () => {
      expect(dayNumber('2026-03-01') - dayNumber('2026-02-28')).toBe(1);
      expect(dayNumber('2028-03-01') - dayNumber('2028-02-28')).toBe(2);
      expect(dayNumber('2027-01-01') - dayNumber('2026-01-01')).toBe(365);
    });

    it.each([
      // America/New_York springs forward on 2026-03-08: that day has 23 hours.
      ['America/New_York', '2026-03-08T04:00:00Z', '2026-03-09T03:00:00Z', 23],
      ['America/New_York', '2026-03-09T03:00:00Z', '2026-03-10T03:00:00Z', 24],
      // ... and falls back on 2026-11-01: that day has 25 hours.
      ['America/New_York', '2026-11-01T04:30:00Z', '2026-11-02T05:30:00Z', 25],
      // Europe/Paris: 2026-03-29 (23 hours) and 2026-10-25 (25 hours).
      ['Europe/Paris', '2026-03-28T23:30:00Z', '2026-03-29T22:30:00Z', 23],
      ['Europe/Paris', '2026-10-24T22:30:00Z', '2026-10-25T23:30:00Z', 25],
    ])('in %s, %s and %s are one local day apart (%i hours)', (zone, a, b, hours) => {
      expect((utc(b) - utc(a)) / 3_600_000).toBe(hours);
      expect(daysBetween(utc(a), utc(b), zone)).toBe(1);
    });

    it('sees 23:30 and 00:30 of the New York fall-back day as the same day, 24 hours apart', () => {
      const a = utc('2026-11-01T04:30:00Z'); // 00:30 EDT
      const b = utc('2026-11-02T04:30:00Z'); // 23:30 EST, same local day
      expect(localDay(a, 'America/New_York')).toBe('2026-11-01');
      expect(daysBetween(a, b, 'America/New_York')).toBe(0);
    });

    it('sees 00:30 of two New York days around spring-forward as one day apart, only 23 hours later', () => {
      const a = utc('2026-03-08T05:30:00Z'); // 00:30 EST
      const b = utc('2026-03-09T04:30:00Z'); // 00:30 EDT
      expect(daysBetween(a, b, 'America/New_York')).toBe(1);
    });

    it('crosses a local year end as one day', () => {
      expect(daysBetween(utc('2027-01-01T04:00:00Z'), utc('2027-01-01T05:30:00Z'), 'America/New_York')).toBe(1);
    });
  });

  describe('startOfNextLocalMonth', () => {
    it.each([
      // The caps example: a New York customer's next month starts at local midnight of February 1st.
      ['America/New_York', '2026-01-05T10:00:00Z', '2026-02-01T05:00:00.000Z'],
      ['America/New_York', '2026-02-01T04:59:59Z', '2026-02-01T05:00:00.000Z'],
      ['America/New_York', '2026-02-01T05:00:00Z', '2026-03-01T05:00:00.000Z'],
      ['America/New_York', '2026-03-15T12:00:00Z', '2026-04-01T04:00:00.000Z'],
      ['America/New_York', '2026-10-15T12:00:00Z', '2026-11-01T04:00:00.000Z'],
      ['America/New_York', '2026-11-15T12:00:00Z', '2026-12-01T05:00:00.000Z'],
      ['America/New_York', '2026-12-15T12:00:00Z', '2027-01-01T05:00:00.000Z'],
      ['Asia/Kolkata', '2026-01-05T10:00:00Z', '2026-01-31T18:30:00.000Z'],
      ['Asia/Kolkata', '2026-01-31T18:30:00Z', '2026-02-28T18:30:00.000Z'],
      ['Asia/Kolkata', '2026-12-31T19:00:00Z', '2027-01-31T18:30:00.000Z'],
      ['UTC', '2028-02-10T00:00:00Z', '2028-03-01T00:00:00.000Z'],
      // Lord Howe moves from +10:30 to +11 at 02:00 on 1 October 2017: its midnight is still at +10:30.
      ['Australia/Lord_Howe', '2017-09-15T00:00:00Z', '2017-09-30T13:30:00.000Z'],
    ])('in %s, after %s comes %s', (zone, at, expected) => {
      expect(new Date(startOfNextLocalMonth(utc(at), zone)).toISOString()).toBe(expected);
    });
  });

  describe('startOfLocalDay', () => {
    it.each([
      ['America/New_York', [2026, 3, 8], '2026-03-08T05:00:00.000Z'], // the spring-forward day, switched at 02:00
      ['Australia/Lord_Howe', [2017, 10, 1], '2017-09-30T13:30:00.000Z'], // +10:30 until 02:00, then +11
      ['America/Sao_Paulo', [2018, 11, 4], '2018-11-04T03:00:00.000Z'], // midnight skipped: 00:00 -03 became 01:00 -02
      ['America/Havana', [2018, 11, 4], '2018-11-04T04:00:00.000Z'], // midnight twice (01:00 -04 set back to 00:00 -05): the first
    ] as const)('in %s, %j starts at %s', (zone, [year, month, day], expected) => {
      expect(new Date(startOfLocalDay(year, month, day, zone)).toISOString()).toBe(expected);
    });
  });

  describe('startOfNextLocalYear', () => {
    it.each([
      ['America/New_York', '2026-01-05T10:00:00Z', '2027-01-01T05:00:00.000Z'],
      ['America/New_York', '2027-01-01T04:59:59Z', '2027-01-01T05:00:00.000Z'],
      ['America/New_York', '2027-01-01T05:00:00Z', '2028-01-01T05:00:00.000Z'],
      ['America/New_York', '2026-07-04T12:00:00Z', '2027-01-01T05:00:00.000Z'],
      ['Asia/Kolkata', '2026-01-05T10:00:00Z', '2026-12-31T18:30:00.000Z'],
      ['Asia/Kolkata', '2026-12-31T18:30:00Z', '2027-12-31T18:30:00.000Z'],
    ])('in %s, after %s comes %s', (zone, at, expected) => {
      expect(new Date(startOfNextLocalYear(utc(at), zone)).toISOString()).toBe(expected);
    });
  });

  describe('isDay', () => {
    it.each(['2026-01-05', '2026-12-31', '2028-02-29', '2026-02-28'])('accepts %s', (value) => {
      expect(isDay(value)).toBe(true);
    });

    it.each(['2026-02-29', '2026-02-30', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-5', '26-01-05', '2026-01-05T00:00:00Z', ' 2026-01-05', ''])(
      'rejects %j',
      (value) => {
        expect(isDay(value)).toBe(false);
      },
    );

    it.each([20260105, null, undefined, {}, ['2026-01-05']])('rejects the non-string %j', (value) => {
      expect(isDay(value)).toBe(false);
    });
  });

  describe('localParts', () => {
    /** What Intl itself says, every instant asked afresh: the reference localParts must agree with. */
    const formats = new Map<string, Intl.DateTimeFormat>();
    function intl(ms: number, timeZone: string) {
      if (!formats.has(timeZone)) {
        formats.set(timeZone, new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
      }
      const f = formats.get(timeZone)!;
      const parts = Object.fromEntries(f.formatToParts(ms).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
      return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
    }

    // Whole-hour and half-hour shifts (Lord Howe), transitions off the UTC hour (Lord Howe, Chatham at :45, Newfoundland),
    // southern summers, a zone that suspends DST in Ramadan (Casablanca), and zones with no DST.
    const ZONES = ['America/New_York', 'Europe/Paris', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/St_Johns', 'Africa/Casablanca', 'Asia/Kathmandu', 'Asia/Tokyo', 'UTC'];

    it.each(ZONES)('agrees with Intl in %s at every instant of 2026, around every offset change too', (zone) => {
      const start = Date.UTC(2026, 0, 1);
      const end = Date.UTC(2027, 0, 1);
      let compared = 0;
      const disagreements: string[] = [];
      const check = (ms: number) => {
        compared += 1;
        const [ours, theirs] = [localParts(ms, zone), intl(ms, zone)];
        if (JSON.stringify({ ...ours }) !== JSON.stringify(theirs)) disagreements.push(`${new Date(ms).toISOString()}: ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`);
      };
      // Every 30 min 1.357 s through the year (every minute of the hour in turn, odd milliseconds), and every 30 s
      // of the hours around each change of offset found on the way.
      const offset = (ms: number) => {
        const p = intl(ms, zone);
        return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
      };
      for (let ms = start, before = offset(start); ms < end; ms += 1_801_357) {
        const now = offset(ms);
        if (now !== before) {
          for (let near = ms - 2 * 3_600_000; near < ms + 3_600_000; near += 30_007) {
            check(near);
          }
        }
        check(ms);
        before = now;
      }
      expect(disagreements).toEqual([]);
      expect(compared).toBeGreaterThan(17_000);
    });
  });
});
