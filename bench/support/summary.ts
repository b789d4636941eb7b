/**
 * The one table `npm run bench` ends with: each figure a benchmark measured, next to the ceiling measured in the same
 * run, their ratio, and the target for it where there is one.
 */
import { table } from './load.js';

export interface Figure {
  figure: string;
  /** A stable name for the ratios bench:check compares with bench/floors.json (absent when no floor is kept). */
  key?: string;
  /** Why the figure's workload cannot be trusted (it errored, or stored less than it answered): bench:check fails it. */
  broken?: string;
  value: number | string;
  unit: string;
  /** What the figure is compared with (measured in the same run). */
  ceiling?: string;
  ceilingValue?: number;
  /** Computed from value and ceilingValue when absent: a percentage (throughputs) or a multiple (times, costs). */
  ratio?: string;
  /** How ratio() should show this figure: `%` of the ceiling (higher is better) or `×` the ceiling (lower is better). */
  ratioAs?: '%' | '×';
  target?: string;
  /** Whether the target is met; absent when the figure has no target. */
  met?: boolean;
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return '-';
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
}

export function ratio(value: number, ceiling: number, as: '%' | '×' = '%'): string {
  if (!Number.isFinite(value) || !Number.isFinite(ceiling) || ceiling === 0) return '';
  return as === '%' ? `${((value / ceiling) * 100).toFixed(value / ceiling < 0.1 ? 1 : 0)}%` : `${(value / ceiling).toFixed(1)}×`;
}

export function figuresTable(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.figure,
    typeof f.value === 'number' ? fmt(f.value) : f.value,
    f.unit,
    f.ceiling ?? '',
    f.ceilingValue === undefined ? '' : fmt(f.ceilingValue),
    f.ratio ?? (typeof f.value === 'number' && f.ceilingValue !== undefined ? ratio(f.value, f.ceilingValue, f.ratioAs) : ''),
    f.target ?? '',
    f.met === undefined ? '' : f.met ? 'met' : 'NOT met',
  ]);
  return table(['figure', 'value', 'unit', 'ceiling', 'ceiling value', 'ratio', 'target', ''], rows);
}
