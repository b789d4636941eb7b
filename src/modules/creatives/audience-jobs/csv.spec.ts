import { csvField, csvLine } from './csv.js';

describe('audience CSV escaping', () => {
  it('leaves plain values alone', () => {
    expect(csvLine(['c-1', '0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f'])).toBe('c-1,0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f\n');
  });

  it('quotes commas, quotes, line breaks and edge spaces, doubling quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
  });
});
