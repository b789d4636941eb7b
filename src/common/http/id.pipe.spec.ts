import { AppError } from '../errors/app-error.js';
import { IdPipe } from './id.pipe.js';

describe('IdPipe', () => {
  const pipe = new IdPipe('campaign');

  it.each([
    ['1', 1],
    ['42', 42],
    ['2147483647', 2_147_483_647],
  ])('reads the canonical id %j as %d', (value, id) => {
    expect(pipe.transform(value)).toBe(id);
  });

  it.each(['01', '001', '1.0', '1.', '0x1', '+1', '1e0', ' 1', '1 ', '', 'abc', '0', '-1', '00', '2147483648', '99999999999', '1.5', '１'])(
    'answers 404 not_found for %j, as for an id that does not exist',
    (value) => {
      let error: unknown;
      try {
        pipe.transform(value);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect({ code: (error as AppError).code, status: (error as AppError).status, message: (error as AppError).message }).toEqual({
        code: 'not_found',
        status: 404,
        message: 'campaign not found',
      });
    },
  );

  it("answers the route's own error when it gives one", () => {
    const v1 = new IdPipe('campaign', () => new AppError('No_active_campaign_found', 'no live campaign matches the request'));
    expect(() => v1.transform('01')).toThrow(expect.objectContaining({ code: 'No_active_campaign_found' }));
    expect(v1.transform('7')).toBe(7);
  });
});
