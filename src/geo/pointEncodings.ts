import polyline from '@mapbox/polyline';
import ngeohash from 'ngeohash';
import type { LatLon } from './coordinates.js';

/** How a trip's points are written: Maplink's pointsMode values. */
export type PointsMode = 'polyline' | 'object' | 'array' | 'geohash';
export const POINTS_MODES: readonly PointsMode[] = ['polyline', 'object', 'array', 'geohash'];

/** Characters per geohash: 9 is about 5 m by 5 m. */
export const GEOHASH_PRECISION = 9;

export type EncodedPoints = string | LatLon[] | Array<[number, number]> | string[];

/**
 * Encodes points: `polyline` is Google's encoded polyline (precision 1e5, latitude first),
 * `object` {latitude, longitude}, `array` [latitude, longitude], `geohash` 9-character cells.
 */
export function encodePoints(points: LatLon[], mode: PointsMode): EncodedPoints {
  switch (mode) {
    case 'polyline':
      return polyline.encode(points.map((p) => [p.latitude, p.longitude]));
    case 'object':
      return points.map((p) => ({ latitude: p.latitude, longitude: p.longitude }));
    case 'array':
      return points.map((p): [number, number] => [p.latitude, p.longitude]);
    case 'geohash':
      return points.map((p) => ngeohash.encode(p.latitude, p.longitude, GEOHASH_PRECISION));
  }
}
