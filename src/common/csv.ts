/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"): `=`, `+`, `-`, `@`, tab and
 * carriage return. A value starting with one of them, or with the `'` this adds, gets one leading `'`, so a
 * spreadsheet shows it as text, and a program gets the original back by dropping the first character of any value
 * that starts with `'`.
 */
const FORMULA_START = /^[=+\-@\t\r']/;

/** A value a spreadsheet shows as text: a leading `'` before a formula character (or before a `'`). */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * One CSV field (RFC 4180), formula characters neutralised first: quoted when it holds a comma, a quote, a line break
 * or leading/trailing space, quotes doubled.
 */
export function csvField(value: string): string {
  const safe = neutralizeFormula(value);
  return /[",\r\n]|^\s|\s$/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: string[]): string {
  return `${values.map(csvField).join(',')}\n`;
}
