import { dateOf, dayNumber, localDate, periodsOf, periodStart, yearBit, yearMasks } from './periods.js';

const day = (date: string) => {
  const n = dayNumber(date);
  if (n === null) throw new Error(`not a date: ${date}`);
  return n;
};
const periods = (from: string, to: string, granularity: 'day' | 'week' | 'month') =>
  periodsOf(day(from), day(to), granularity).map((p) => [p.period, dateOf(p.from), dateOf(p.to)]);

describe('analytics periods', () => {
  describe('dates', () => {
    it('reads real calendar dates only', () => {
      expect(dateOf(day('2028-02-29'))).toBe('2028-02-29');
      for (const bad of ['2027-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', '', '0000-01-01']) expect(dayNumber(bad)).toBeNull();
    });

    it('places an instant on its local date across daylight saving changes (New York, 2026)', () => {
      // Spring forward on 8 March at 02:00 EST: 04:59Z is 23:59 EST on the 7th, 05:00Z midnight of the 8th.
      expect(localDate(Date.parse('2026-03-08T04:59:59Z'), 'America/New_York')).toBe('2026-03-07');
      expect(localDate(Date.parse('2026-03-08T05:00:00Z'), 'America/New_York')).toBe('2026-03-08');
      // After it, midnight is 04:00Z.
      expect(localDate(Date.parse('2026-03-09T03:59:59Z'), 'America/New_York')).toBe('2026-03-08');
      expect(localDate(Date.parse('2026-03-09T04:00:00Z'), 'America/New_York')).toBe('2026-03-09');
      // Fall back on 1 November: the day has 25 hours, from 04:00Z to 05:00Z the next day.
      expect(localDate(Date.parse('2026-11-02T04:59:59Z'), 'America/New_York')).toBe('2026-11-01');
      expect(localDate(Date.parse('2026-11-02T05:00:00Z'), 'America/New_York')).toBe('2026-11-02');
    });

    it("places an instant by Lord Howe Island's half-hour offsets (+10:30 in winter, +11 in summer)", () => {
      expect(localDate(Date.parse('2026-06-30T13:29:59Z'), 'Australia/Lord_Howe')).toBe('2026-06-30');
      expect(localDate(Date.parse('2026-06-30T13:30:00Z'), 'Australia/Lord_Howe')).toBe('2026-07-01');
      expect(localDate(Date.parse('2026-12-31T12:59:59Z'), 'Australia/Lord_Howe')).toBe('2026-12-31');
      expect(localDate(Date.parse('2026-12-31T13:00:00Z'), 'Australia/Lord_Howe')).toBe('2027-01-01');
    });

    it('places an instant on the date of zones far from UTC either way', () => {
      const instant = Date.parse('2026-11-28T11:30:00Z');
      expect(localDate(instant, 'Pacific/Kiritimati')).toBe('2026-11-29');
      expect(localDate(instant, 'Pacific/Pago_Pago')).toBe('2026-11-28');
      expect(localDate(instant, 'UTC')).toBe('2026-11-28');
    });
  });

  describe('periods of a range', () => {
    it('by day: every day, the range inclusive', () => {
      expect(periods('2026-02-27', '2026-03-02', 'day').map((p) => p[0])).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
      expect(periods('2026-05-05', '2026-05-05', 'day')).toEqual([['2026-05-05', '2026-05-05', '2026-05-05']]);
    });

    it('by week: weeks start on Monday; the first and last weeks are cut by the range', () => {
      // 2026-11-25 is a Wednesday, 2026-12-08 a Tuesday.
      expect(periods('2026-11-25', '2026-12-08', 'week')).toEqual([
        ['2026-11-23', '2026-11-25', '2026-11-29'],
        ['2026-11-30', '2026-11-30', '2026-12-06'],
        ['2026-12-07', '2026-12-07', '2026-12-08'],
      ]);
      expect(dateOf(periodStart(day('2026-11-29'), 'week'))).toBe('2026-11-23');
      expect(dateOf(periodStart(day('2026-11-30'), 'week'))).toBe('2026-11-30');
    });

    it('by week across a year boundary: the week of 28 December 2026 holds 1-3 January 2027', () => {
      expect(periods('2026-12-30', '2027-01-05', 'week')).toEqual([
        ['2026-12-28', '2026-12-30', '2027-01-03'],
        ['2027-01-04', '2027-01-04', '2027-01-05'],
      ]);
    });

    it('by month: calendar months, February of a leap year whole', () => {
      expect(periods('2027-12-15', '2028-03-01', 'month')).toEqual([
        ['2027-12-01', '2027-12-15', '2027-12-31'],
        ['2028-01-01', '2028-01-01', '2028-01-31'],
        ['2028-02-01', '2028-02-01', '2028-02-29'],
        ['2028-03-01', '2028-03-01', '2028-03-01'],
      ]);
    });

    it('three years by day: 1,096 periods over a leap year', () => {
      const list = periodsOf(day('2026-01-01'), day('2028-12-31'), 'day');
      expect(list).toHaveLength(1096);
      expect(list.at(-1)!.period).toBe('2028-12-31');
    });
  });

  describe('bitmaps of days by year', () => {
    it('numbers days from 0 on 1 January; 31 December of a leap year is bit 365', () => {
      expect(yearBit(day('2026-01-01'))).toEqual({ year: 2026, bit: 0 });
      expect(yearBit(day('2026-12-31'))).toEqual({ year: 2026, bit: 364 });
      expect(yearBit(day('2028-12-31'))).toEqual({ year: 2028, bit: 365 });
    });

    it('sets the bits of a range in one mask per year it touches', () => {
      const masks = yearMasks(day('2026-12-30'), day('2027-01-02'));
      expect(masks.map((m) => m.year)).toEqual([2026, 2027]);
      expect(masks.every((m) => m.mask.length === 366)).toBe(true);
      expect([...masks[0].mask].flatMap((b, i) => (b === '1' ? [i] : []))).toEqual([363, 364]);
      expect([...masks[1].mask].flatMap((b, i) => (b === '1' ? [i] : []))).toEqual([0, 1]);
    });
  });
});
