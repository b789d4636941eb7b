/**
 * Calendar arithmetic in a customer's time zone, from epoch milliseconds. Uses only Intl and Date's pure functions:
 * the engine never reads the clock.
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/**
 * The last instants converted, per zone: one evaluation asks for the same instants (the event's, the previous
 * event's) many times. A pure memo: same input, same answer.
 */
const recent = new Map<string, LocalParts>();
const RECENT_MAX = 1024;

function intlParts(ms: number, timeZone: string): LocalParts {
  const key = `${timeZone}|${ms}`;
  const known = recent.get(key);
  if (known) return known;
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const local = Object.freeze({ year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second });
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(key, local);
  return local;
}

const HOUR_MS = 3_600_000;
/** Per zone, the zone's offset from UTC during each UTC hour (by hour number); null for an hour with a transition. */
const hourOffsets = new Map<string, Map<number, number | null>>();
/** Hours held in all zones together at most (each a few dozen bytes). */
const HOURS_MAX = 200_000;
let hoursHeld = 0;

/** The offset (ms) that local `p` shows at instant `ms`, to the second. */
const offsetOf = (p: LocalParts, ms: number) => Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;

/**
 * The customer-local calendar parts of an instant. Intl's formatToParts is the slowest step of the engine, and a
 * replay of stored events (simulations) never asks for the same instant twice: so the zone's offset is asked of Intl
 * once per UTC hour (at its first and last second: equal, no transition falls inside it, since zones change offset
 * months apart and on whole minutes), and the parts of an instant in that hour are plain UTC arithmetic. An hour
 * with a transition asks Intl for every instant.
 */
export function localParts(ms: number, timeZone: string): LocalParts {
  let zone = hourOffsets.get(timeZone);
  if (!zone) hourOffsets.set(timeZone, (zone = new Map()));
  const hour = Math.floor(ms / HOUR_MS);
  let offset = zone.get(hour);
  if (offset === undefined) {
    const first = hour * HOUR_MS;
    const last = first + HOUR_MS - 1000;
    const a = offsetOf(intlParts(first, timeZone), first);
    offset = a === offsetOf(intlParts(last, timeZone), last) ? a : null;
    if (++hoursHeld > HOURS_MAX) {
      hourOffsets.clear(); // many zones over many years: start again rather than grow
      hourOffsets.set(timeZone, zone);
      zone.clear();
      hoursHeld = 1;
    }
    zone.set(hour, offset);
  }
  if (offset === null) return intlParts(ms, timeZone);
  const d = new Date(ms + offset);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The customer-local calendar date, `YYYY-MM-DD`. */
export function localDay(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date: differences between two are calendar days, whatever DST does. */
export function dayNumber(day: string): number {
  const [y, m, d] = day.split('-').map(Number);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number);
  const back = new Date(Date.UTC(y, m - 1, d));
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d;
}

/** Offset of the zone from UTC at that instant, in milliseconds (positive east of Greenwich). */
function offsetAt(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The instant a local calendar date starts in the zone (its first existing minute, if midnight is skipped). */
export function startOfLocalDay(year: number, month: number, day: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day);
  // The offset at the guess, then the offset at what that gives: one of the two is the offset at local midnight.
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  if (first === second) return first;
  const atMidnight = (ms: number) => {
    const p = localParts(ms, timeZone);
    return p.hour === 0 && p.minute === 0 && Date.UTC(p.year, p.month - 1, p.day) === guess;
  };
  const exact = [first, second].filter(atMidnight);
  // Midnight twice (the clock set back to it): the first. Midnight skipped: the day starts where the clock jumps,
  // the later of the two (the instant the new offset begins).
  return exact.length > 0 ? Math.min(...exact) : Math.max(first, second);
}

export function monthKey(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}`;
}

export function yearKey(ms: number, timeZone: string): string {
  return pad(localParts(ms, timeZone).year, 4);
}

export function startOfNextLocalMonth(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  return p.month === 12 ? startOfLocalDay(p.year + 1, 1, 1, timeZone) : startOfLocalDay(p.year, p.month + 1, 1, timeZone);
}

export function startOfNextLocalYear(ms: number, timeZone: string): number {
  return startOfLocalDay(localParts(ms, timeZone).year + 1, 1, 1, timeZone);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
