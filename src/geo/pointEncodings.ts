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
 * Encodes points (LatLon objects, or latitude, longitude interleaved as in a route leg's
 * `coordinates`): `polyline` is Google's encoded polyline (precision 1e5, latitude first),
 * `object` {latitude, longitude}, `array` [latitude, longitude], `geohash` 9-character cells.
 */
export function encodePoints(points: LatLon[] | Float64Array, mode: PointsMode): EncodedPoints {
  const pairs = asPairs(points);
  switch (mode) {
    case 'polyline':
      return polyline.encode(pairs);
    case 'object':
      return pairs.map(([latitude, longitude]) => ({ latitude, longitude }));
    case 'array':
      return pairs;
    case 'geohash':
      return pairs.map(([latitude, longitude]) => ngeohash.encode(latitude, longitude, GEOHASH_PRECISION));
  }
}

function asPairs(points: LatLon[] | Float64Array): Array<[number, number]> {
  if (!(points instanceof Float64Array)) return points.map((p): [number, number] => [p.latitude, p.longitude]);
  const pairs = new Array<[number, number]>(points.length >> 1);
  for (let i = 0; i < pairs.length; i++) pairs[i] = [points[2 * i], points[2 * i + 1]];
  return pairs;
}

/**
 * The points of an encoding (encodePoints' output in `mode`) as latitude, longitude interleaved:
 * polylines at their 1e-5 degree precision, geohashes as their cells' centres.
 */
export function decodePoints(encoded: EncodedPoints, mode: PointsMode): Float64Array {
  const pairs: Array<[number, number]> =
    mode === 'polyline' ? polyline.decode(encoded as string)
      : mode === 'object' ? (encoded as LatLon[]).map((p) => [p.latitude, p.longitude])
        : mode === 'array' ? (encoded as Array<[number, number]>)
          : (encoded as string[]).map((h) => { const c = ngeohash.decode(h); return [c.latitude, c.longitude]; });
  const out = new Float64Array(pairs.length * 2);
  pairs.forEach(([lat, lon], i) => { out[2 * i] = lat; out[2 * i + 1] = lon; });
  return out;
}
