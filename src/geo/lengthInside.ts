import { haversineMetres } from './haversine.js';
import { pointInPolygonReference, type PreparedPolygon } from './PreparedPolygon.js';

const cuts: number[] = [];

/**
 * Metres of a polyline that lie inside or on a polygon. The polyline is points[from .. to) of an
 * interleaved lon, lat array (default: all of it). Each segment is cut where it meets polygon
 * edges (found through the polygon's row index) and each piece is tested at its midpoint. Lengths
 * are haversine; pieces are split by linear interpolation in degrees.
 */
export function lengthInside(poly: PreparedPolygon, points: Float64Array, from = 0, to = points.length >> 1): number {
  const { minX, maxX, minY, maxY, rows, invRowHeight, rowStart, rowEdges, next, xy } = poly;
  let total = 0;
  for (let k = 2 * from; k + 3 < 2 * to; k += 2) {
    const ax = points[k], ay = points[k + 1], bx = points[k + 2], by = points[k + 3];
    if ((ax > bx ? ax : bx) < minX || (ax < bx ? ax : bx) > maxX || (ay > by ? ay : by) < minY || (ay < by ? ay : by) > maxY) continue;
    cuts.length = 0;
    const dx = bx - ax, dy = by - ay;
    let r0 = Math.floor(((ay < by ? ay : by) - minY) * invRowHeight);
    let r1 = Math.floor(((ay > by ? ay : by) - minY) * invRowHeight);
    r0 = r0 < 0 ? 0 : r0 >= rows ? rows - 1 : r0;
    r1 = r1 < 0 ? 0 : r1 >= rows ? rows - 1 : r1;
    for (let r = r0; r <= r1; r++) {
      for (let q = rowStart[r]; q < rowStart[r + 1]; q++) {
        const i = rowEdges[q], j = next[i];
        const cx = xy[2 * i], cy = xy[2 * i + 1];
        const ex = xy[2 * j] - cx, ey = xy[2 * j + 1] - cy;
        const denom = dx * ey - dy * ex;
        if (denom === 0) {
          // Parallel: a collinear overlap starts or ends at the edge's ends.
          const useX = Math.abs(dx) >= Math.abs(dy);
          const t1 = useX ? (cx - ax) / dx : (cy - ay) / dy;
          const t2 = useX ? (cx + ex - ax) / dx : (cy + ey - ay) / dy;
          if (t1 > 0 && t1 < 1) cuts.push(t1);
          if (t2 > 0 && t2 < 1) cuts.push(t2);
          continue;
        }
        const t = ((cx - ax) * ey - (cy - ay) * ex) / denom;
        const u = ((cx - ax) * dy - (cy - ay) * dx) / denom;
        if (t > 0 && t < 1 && u >= 0 && u <= 1) cuts.push(t);
      }
    }
    if (cuts.length === 0) {
      // No boundary on the segment: wholly inside or wholly outside.
      if (pointInPolygonReference(poly, ax + dx * 0.5, ay + dy * 0.5)) total += haversineMetres(ay, ax, by, bx);
      continue;
    }
    cuts.push(0, 1);
    cuts.sort((p, q) => p - q);
    for (let c = 0; c + 1 < cuts.length; c++) {
      const t0 = cuts[c], t1 = cuts[c + 1];
      if (t1 <= t0) continue;
      const tm = (t0 + t1) / 2;
      if (pointInPolygonReference(poly, ax + dx * tm, ay + dy * tm)) {
        total += haversineMetres(ay + dy * t0, ax + dx * t0, ay + dy * t1, ax + dx * t1);
      }
    }
  }
  return total;
}
