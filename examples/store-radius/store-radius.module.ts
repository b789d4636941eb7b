/**
 * An example extension a team can copy: a criteria operator whose value is an object. `within_km` holds when a place
 * (an event's attribute, a customer's attribute) lies within `km` kilometres of a centre, by the haversine distance:
 * `{ "field": "location", "op": "within_km", "value": { "lat": 48.8566, "lon": 2.3522, "km": 5 } }` in a goal's
 * criteria, or on `user.attributes.home` in a campaign's or creative group's targeting. The place is `{ lat, lon }`
 * or, since event and customer attributes are flat, the text `"lat,lon"` (`"48.8566,2.3522"`). Load it with
 * `EXTENSIONS=dist/examples/store-radius/store-radius.module.js#StoreRadiusModule` (docs/extending.md).
 */
import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsNumber, IsObject, IsPositive, Max, Min, ValidateNested } from 'class-validator';
import { CriteriaOperator, CriteriaOperatorHandler } from '../../src/extension-api/index.js';

/** The mean radius of the Earth (IUGG), in kilometres. */
export const EARTH_RADIUS_KM = 6371.0088;
/** The largest radius a criterion may give: about half the Earth's circumference (20,015 km), the whole planet. */
export const MAX_KM = 20_000;

const FINITE = { allowNaN: false, allowInfinity: false };

/** A circle on the Earth: its centre and its radius. */
export class Area {
  @ApiProperty({ example: 48.8566, minimum: -90, maximum: 90, description: 'Latitude of the centre, in degrees' })
  @IsNumber(FINITE)
  @Min(-90)
  @Max(90)
  lat!: number;

  @ApiProperty({ example: 2.3522, minimum: -180, maximum: 180, description: 'Longitude of the centre, in degrees' })
  @IsNumber(FINITE)
  @Min(-180)
  @Max(180)
  lon!: number;

  @ApiProperty({ example: 5, exclusiveMinimum: true, minimum: 0, maximum: MAX_KM, description: `Radius in kilometres: more than 0, at most ${MAX_KM}` })
  @IsNumber(FINITE)
  @IsPositive()
  @Max(MAX_KM)
  km!: number;
}

/** The criterion's value, checked as the `value` member of this class when a goal or a targeting is written. */
export class WithinKmValue {
  @ApiProperty({ type: Area, description: 'The circle the place must lie in (its edge included)' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => Area)
  value!: Area;
}

export interface Point {
  lat: number;
  lon: number;
}

const inRange = (value: unknown, limit: number): value is number => typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;
const PAIR = /^\s*([-+]?\d+(?:\.\d+)?)\s*,\s*([-+]?\d+(?:\.\d+)?)\s*$/;

/** `{ lat, lon }` or `"lat,lon"` in degrees, as a point; null for anything else (absent, malformed, out of range). */
export function asPoint(value: unknown): Point | null {
  let lat: unknown;
  let lon: unknown;
  if (typeof value === 'string') {
    const match = PAIR.exec(value);
    if (!match) return null;
    [lat, lon] = [Number(match[1]), Number(match[2])];
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    ({ lat, lon } = value as Record<string, unknown>);
  }
  return inRange(lat, 90) && inRange(lon, 180) ? { lat, lon } : null;
}

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** The great-circle distance between two points in kilometres (haversine, on a sphere of the Earth's mean radius). */
export function distanceKm(a: Point, b: Point): number {
  const h = Math.sin(radians(b.lat - a.lat) / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(radians(b.lon - a.lon) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * `within_km`: the field's place lies within `km` of the value's centre. Pure, and it never throws: an absent or
 * malformed place (or a value that is not an area, which the write check refuses anyway, but a stale value stored
 * before the class changed may be) does not hold.
 */
@CriteriaOperator({ name: 'within_km', description: 'The place ({lat, lon} or "lat,lon") lies within km kilometres of the centre', value: WithinKmValue })
export class WithinKm extends CriteriaOperatorHandler<Area> {
  test(actual: unknown, expected: Area): boolean {
    const point = asPoint(actual);
    const centre = asPoint(expected);
    const km = (expected as { km?: unknown } | null | undefined)?.km;
    if (!point || !centre || typeof km !== 'number' || !(km > 0)) return false;
    return distanceKm(point, centre) <= km;
  }
}

@Module({ providers: [WithinKm] })
export class StoreRadiusModule {}
