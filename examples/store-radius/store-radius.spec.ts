import { valueCheck } from '../../src/common/validation/extension-checks.js';
import { asPoint, distanceKm, WithinKm, WithinKmValue, type Area } from './store-radius.module.js';

const PARIS = { lat: 48.8566, lon: 2.3522 };
const LONDON = { lat: 51.5074, lon: -0.1278 };
const NEW_YORK = { lat: 40.7128, lon: -74.006 };

describe('the store radius operator (examples/store-radius)', () => {
  const withinKm = new WithinKm();

  it('measures great-circle distances (haversine) as the known ones', () => {
    expect(distanceKm(PARIS, PARIS)).toBe(0);
    expect(distanceKm(PARIS, LONDON)).toBeCloseTo(343.5, 0);
    expect(distanceKm(LONDON, PARIS)).toBeCloseTo(distanceKm(PARIS, LONDON), 9);
    expect(distanceKm(PARIS, NEW_YORK)).toBeCloseTo(5837, -1);
    // A quarter meridian, a degree of latitude, and half the equator (antipodes): π/2, π/180 and π Earth radii.
    expect(distanceKm({ lat: 0, lon: 0 }, { lat: 90, lon: 0 })).toBeCloseTo(10_007.6, 0);
    expect(distanceKm({ lat: 10, lon: 20 }, { lat: 11, lon: 20 })).toBeCloseTo(111.195, 2);
    expect(distanceKm({ lat: 0, lon: 0 }, { lat: 0, lon: 180 })).toBeCloseTo(20_015.1, 0);
    // Across the antimeridian: a degree of longitude on the equator, not 359.
    expect(distanceKm({ lat: 0, lon: 179.5 }, { lat: 0, lon: -179.5 })).toBeCloseTo(111.195, 2);
  });

  it('holds when the place lies within km of the centre, its edge included, given as {lat, lon} or "lat,lon"', () => {
    const paris5 = { ...PARIS, km: 5 };
    expect(withinKm.test({ lat: 48.87, lon: 2.33 }, paris5)).toBe(true);
    expect(withinKm.test('48.87,2.33', paris5)).toBe(true);
    expect(withinKm.test(' 48.87 , +2.33 ', paris5)).toBe(true);
    expect(withinKm.test(LONDON, paris5)).toBe(false);
    expect(withinKm.test(LONDON, { ...PARIS, km: 344 })).toBe(true);
    expect(withinKm.test(LONDON, { ...PARIS, km: 343 })).toBe(false);
    const edge = distanceKm(PARIS, NEW_YORK);
    expect([withinKm.test(NEW_YORK, { ...PARIS, km: edge }), withinKm.test(NEW_YORK, { ...PARIS, km: edge - 0.001 })]).toEqual([true, false]);
    expect(withinKm.test(PARIS, { ...PARIS, km: Number.MIN_VALUE })).toBe(true);
  });

  it('does not hold, and never throws, on a place that is absent or malformed, or a value that is not an area', () => {
    const area = { ...PARIS, km: 20_000 };
    const places: unknown[] = [
      undefined,
      null,
      '',
      'paris',
      '48.8566',
      '48.8566,2.3522,3',
      '1e3,2',
      '91,0',
      '0,181',
      48.8566,
      true,
      [48.8566, 2.3522],
      {},
      { lat: 48.8566 },
      { lat: '48.8566', lon: '2.3522' },
      { lat: Number.NaN, lon: 0 },
      { lat: 0, lon: Number.POSITIVE_INFINITY },
      { lat: -90.5, lon: 0 },
      Object.create(null),
    ];
    for (const place of places) expect({ place, holds: withinKm.test(place, area) }).toEqual({ place, holds: false });
    const values: unknown[] = [undefined, null, 'x', 5, [], {}, PARIS, { ...PARIS, km: 0 }, { ...PARIS, km: -1 }, { ...PARIS, km: '5' }, { lat: 100, lon: 0, km: 5 }, '48.8566,2.3522'];
    // What the engine may hand it all the same: a stale value, stored before the class changed.
    for (const value of values) expect({ value, holds: withinKm.test(PARIS, value as Area) }).toEqual({ value, holds: false });
    expect(asPoint({ lat: -90, lon: 180 })).toEqual({ lat: -90, lon: 180 });
    expect(asPoint('-33.8688,151.2093')).toEqual({ lat: -33.8688, lon: 151.2093 });
  });

  it('takes a value {lat, lon, km} of bounded numbers when a criterion is written, each problem under its member', () => {
    const check = valueCheck(WithinKmValue);
    expect(check({ lat: 48.8566, lon: 2.3522, km: 5 })).toEqual({});
    expect(check({ lat: -90, lon: 180, km: 20_000 })).toEqual({});
    expect(check({ lat: 90.5, lon: 2, km: 5 })).toEqual({ 'value.lat': 'must not be greater than 90' });
    expect(check({ lat: 48, lon: -181, km: 5 })).toEqual({ 'value.lon': 'must not be less than -180' });
    expect(Object.keys(check({ lat: 48, lon: 2, km: 0 }))).toEqual(['value.km']);
    expect(Object.keys(check({ lat: 48, lon: 2, km: 20_001 }))).toEqual(['value.km']);
    expect(Object.keys(check({ lat: '48', lon: 2, km: 5 }))).toEqual(['value.lat']);
    expect(Object.keys(check({ lat: 48, lon: 2 }))).toEqual(['value.km']);
    expect(check({ lat: 48, lon: 2, km: 5, radius: 3 })).toEqual({ 'value.radius': 'is not a known attribute' });
    // The first problem is the one a 400 names: `criteria[0].value must be an object`.
    for (const value of ['48,2', 5, [48, 2, 5]]) expect({ value, first: Object.entries(check(value))[0] }).toEqual({ value, first: ['value', 'must be an object'] });
    expect(check(null)).toEqual({ value: 'should not be null or undefined' });
  });
});
