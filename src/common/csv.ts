/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"): `=`, `+`, `-`, `@`, tab and
 * carriage return, in first place or after any leading run of whitespace (Unicode's, U+0085 and U+180E included) and
 * invisible format characters (zero-width space, joiners, word joiner, byte order mark, bidi marks: category Cf),
 * which spreadsheets may skip. Such a value, or one whose first character is the `'` this adds, gets one leading `'`,
 * so a spreadsheet shows it as text, and a program gets the original back by dropping the first character of any
 * value that starts with `'`.
 */
const FORMULA_START = /^(?:[\s\p{Cf}\u0085]*[=+\-@\t\r]|')/u;

/** A value a spreadsheet shows as text: a leading `'` before a formula character (after any blank or invisible ones), or before a `'`. */
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
