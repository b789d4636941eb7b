/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or leading/trailing space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(values: string[]): string {
  return `${values.map(csvField).join(',')}\n`;
}
