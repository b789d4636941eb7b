/**
 * Calendar arithmetic of campaign analytics (contract §19) on plain dates `YYYY-MM-DD`: days are the organization's
 * calendar days, so once an instant is placed on its local date (localDate) nothing depends on offsets or daylight
 * saving. Dates are handled as day numbers (days since 1970-01-01), which have no time zone.
 */
export type Granularity = 'day' | 'week' | 'month';

export const GRANULARITIES: readonly Granularity[] = ['day', 'week', 'month'];

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The day number of a `YYYY-MM-DD` date, or null when it is not a real calendar date. */
export function dayNumber(date: string): number | null {
  const m = DATE.exec(date);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (y < 1 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms / DAY_MS;
}

export function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The calendar date of an instant in a time zone (an IANA name). */
export function localDate(instant: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(instant));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The first day of the period holding `day`: itself, the Monday of its week, the first of its month. */
export function periodStart(day: number, granularity: Granularity): number {
  if (granularity === 'day') return day;
  if (granularity === 'week') return day - ((new Date(day * DAY_MS).getUTCDay() + 6) % 7);
  const d = new Date(day * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
}

/** The first day of the period after the one starting at `start`. */
function nextPeriod(start: number, granularity: Granularity): number {
  if (granularity === 'day') return start + 1;
  if (granularity === 'week') return start + 7;
  const d = new Date(start * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
}

/** A period of a range: `period` is its first day; `from` and `to` the days of it inside the range (inclusive). */
export interface Period {
  period: string;
  from: number;
  to: number;
}

/** Every period of the range `from`..`to` (day numbers, inclusive), in order; the first and last cut by the range. */
export function periodsOf(from: number, to: number, granularity: Granularity): Period[] {
  const periods: Period[] = [];
  for (let start = periodStart(from, granularity); start <= to; start = nextPeriod(start, granularity)) {
    periods.push({ period: dateOf(start), from: Math.max(start, from), to: Math.min(nextPeriod(start, granularity) - 1, to) });
  }
  return periods;
}

/** A day's place in the participants' bitmaps: its year and its index in the year (day of the year − 1). */
export function yearBit(day: number): { year: number; bit: number } {
  const year = new Date(day * DAY_MS).getUTCFullYear();
  return { year, bit: day - Date.UTC(year, 0, 1) / DAY_MS };
}

/** The bitmaps (bit(366) as text, one per year) with the bits of the days `from`..`to` set. */
export function yearMasks(from: number, to: number): Array<{ year: number; mask: string }> {
  const masks = new Map<number, string[]>();
  for (let day = from; day <= to; day += 1) {
    const { year, bit } = yearBit(day);
    let bits = masks.get(year);
    if (!bits) masks.set(year, (bits = new Array<string>(366).fill('0')));
    bits[bit] = '1';
  }
  return [...masks].map(([year, bits]) => ({ year, mask: bits.join('') }));
}
