/** A positive integer setting of a benchmark from the environment (`1_000_000` and `1,000,000` read as 1000000), or `fallback`. */
export function int(name: string, fallback: number): number {
  const value = Number((process.env[name] ?? String(fallback)).replaceAll('_', '').replaceAll(',', ''));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}
