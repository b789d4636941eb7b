import { LIMIT_SETTINGS, limits } from '../../../config/limits.js';

/** `from` plus a number of calendar years, in UTC (February 29 plus a year is March 1). */
function yearsAfter(from: Date, years: number): Date {
  const end = new Date(from.getTime());
  end.setUTCFullYear(end.getUTCFullYear() + years);
  return end;
}

/**
 * What is wrong with a simulation's range, as the message after `simulation.to`, or null: `to` must come after
 * `from`, and at most `limits().simulationYears` years after it (contract §18, LIMIT_SIMULATION_YEARS).
 */
export function simulationRangeProblem(from: Date, to: Date): string | null {
  if (to <= from) return 'must be after simulation.from';
  const years = limits().simulationYears;
  if (to > yearsAfter(from, years)) return `must be at most ${years} ${years === 1 ? 'year' : 'years'} after simulation.from (${LIMIT_SETTINGS.simulationYears.env})`;
  return null;
}
