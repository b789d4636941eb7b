import { csvField, csvLine, neutralizeFormula } from './csv.js';

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

describe('audience CSV formula neutralisation (OWASP CSV injection)', () => {
  it.each([
    ['=', '=1+1', "'=1+1"],
    ['+', '+33123456789', "'+33123456789"],
    ['-', '-2+3+cmd', "'-2+3+cmd"],
    ['@', '@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['a quote (so dropping one leading quote always gives the value back)', "'=x", "''=x"],
  ])('prefixes a value starting with %s with one quote', (_label, value, expected) => {
    expect(neutralizeFormula(value)).toBe(expected);
    expect(csvField(value)).toBe(expected);
  });

  it('prefixes a leading tab or carriage return, and still quotes what needs quoting', () => {
    expect(csvField('\tcmd')).toBe("'\tcmd");
    expect(csvField('\r=cmd')).toBe(`"'\r=cmd"`);
    expect(csvField('=HYPERLINK("http://x","a,b")')).toBe(`"'=HYPERLINK(""http://x"",""a,b"")"`);
  });

  it.each([
    ['a space', ' =1+1'],
    ['a zero-width space', '\u200B=HYPERLINK("http://x","a")'],
    ['a tab', '\t@x'],
    ['two spaces', '  -2'],
    ['a zero-width non-joiner and joiner', '\u200C\u200D+1'],
    ['a word joiner and a byte order mark', '\u2060\uFEFF@SUM(A1)'],
    ['a no-break space, an ideographic space and a line separator', '\u00A0\u3000\u2028=1'],
    ['a next line and a Mongolian vowel separator', '\u0085\u180E-1'],
    ['a left-to-right mark', '\u200E=1'],
    ['a space, then a carriage return', ' \r=1'],
  ])('prefixes a formula character after %s with one quote', (_label, value) => {
    expect(neutralizeFormula(value)).toBe(`'${value}`);
  });

  it('writes such values neutralised, quoted when they need it', () => {
    expect(csvLine([' =1+1', '  -2', '\t@x'])).toBe("' =1+1,'  -2,'\t@x\n");
    expect(csvField('\u200B=HYPERLINK("http://x","a")')).toBe(`"'\u200B=HYPERLINK(""http://x"",""a"")"`);
    expect(csvField(' \r=1')).toBe(`"' \r=1"`);
  });

  it.each([' a', '\u200Bc-1', "  'quoted", ' ', '\u200B'])('leaves %j alone (blank or invisible characters before no formula character)', (value) => {
    expect(neutralizeFormula(value)).toBe(value);
  });

  it('neutralises the dangerous cell of a line and only that one', () => {
    expect(csvLine(['=cmd|\' /C calc\'!A0', '0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f'])).toBe("'=cmd|' /C calc'!A0,0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f\n");
  });

  it.each(['c-1', 'a=b', 'x+y', 'user@example.com', '1-2', ''])('leaves %j alone (a formula character not in first place)', (value) => {
    expect(neutralizeFormula(value)).toBe(value);
  });
});
