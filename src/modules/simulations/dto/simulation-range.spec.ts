import { DEFAULT_LIMITS, useLimits } from '../../../config/limits.js';
import { simulationRangeProblem } from './simulation-range.js';

const at = (text: string) => new Date(text);

afterEach(() => useLimits({ ...DEFAULT_LIMITS }));

describe('simulationRangeProblem', () => {
  it('takes a range of exactly 3 years, and names the limit a moment past it', () => {
    expect(simulationRangeProblem(at('2026-01-01T00:00:00Z'), at('2029-01-01T00:00:00Z'))).toBeNull();
    expect(simulationRangeProblem(at('2026-01-01T00:00:00Z'), at('2029-01-01T00:00:00.001Z'))).toBe(
      'must be at most 3 years after simulation.from (LIMIT_SIMULATION_YEARS)',
    );
    expect(simulationRangeProblem(at('1000-01-01T00:00:00Z'), at('9999-12-31T23:59:59Z'))).toMatch(/^must be at most 3 years/);
  });

  it('counts calendar years: 3 years over a leap day are 1,096 days', () => {
    expect(simulationRangeProblem(at('2027-03-01T00:00:00Z'), at('2030-03-01T00:00:00Z'))).toBeNull();
    expect(simulationRangeProblem(at('2027-03-01T00:00:00Z'), at('2030-03-01T00:00:01Z'))).not.toBeNull();
  });

  it('answers a range that does not end after its start as before', () => {
    expect(simulationRangeProblem(at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'))).toBe('must be after simulation.from');
  });

  it('reads the limit of this process', () => {
    useLimits({ ...DEFAULT_LIMITS, simulationYears: 1 });
    expect(simulationRangeProblem(at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toBeNull();
    expect(simulationRangeProblem(at('2026-01-01T00:00:00Z'), at('2027-01-02T00:00:00Z'))).toBe(
      'must be at most 1 year after simulation.from (LIMIT_SIMULATION_YEARS)',
    );
  });
});
