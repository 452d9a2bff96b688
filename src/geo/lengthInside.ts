import { haversineMetres } from './haversine.js';
import { pointInPolygonReference, type PreparedPolygon } from './PreparedPolygon.js';

/**
 * Metres of a polyline (interleaved lon, lat) that lie inside or on a polygon. Each segment is cut
 * where it meets polygon edges (found through the polygon's row index) and each piece is tested
 * at its midpoint. Lengths are haversine, pieces split by linear interpolation in degrees.
 */
export function lengthInside(poly: PreparedPolygon, line: Float64Array): number {
  let total = 0;
  const cuts: number[] = [];
  for (let k = 0; k + 3 < line.length; k += 2) {
    const ax = line[k], ay = line[k + 1], bx = line[k + 2], by = line[k + 3];
    if (Math.max(ax, bx) < poly.minX || Math.min(ax, bx) > poly.maxX || Math.max(ay, by) < poly.minY || Math.min(ay, by) > poly.maxY) continue;
    cuts.length = 0;
    cuts.push(0, 1);
    const rowOf = (y: number) => Math.min(poly.rows - 1, Math.max(0, Math.floor((y - poly.minY) * poly.invRowHeight)));
    const r0 = rowOf(Math.min(ay, by)), r1 = rowOf(Math.max(ay, by));
    const dx = bx - ax, dy = by - ay;
    for (let r = r0; r <= r1; r++) {
      for (let q = poly.rowStart[r]; q < poly.rowStart[r + 1]; q++) {
        const i = poly.rowEdges[q], j = poly.next[i];
        const cx = poly.xy[2 * i], cy = poly.xy[2 * i + 1];
        const ex = poly.xy[2 * j] - cx, ey = poly.xy[2 * j + 1] - cy;
        const denom = dx * ey - dy * ex;
        if (denom === 0) {
          // Parallel: collinear overlaps are handled by the midpoint tests between the edge's ends.
          for (const [px, py] of [[cx, cy], [cx + ex, cy + ey]]) {
            const t = Math.abs(dx) >= Math.abs(dy) ? (px - ax) / dx : (py - ay) / dy;
            if (t > 0 && t < 1) cuts.push(t);
          }
          continue;
        }
        const t = ((cx - ax) * ey - (cy - ay) * ex) / denom;
        const u = ((cx - ax) * dy - (cy - ay) * dx) / denom;
        if (t > 0 && t < 1 && u >= 0 && u <= 1) cuts.push(t);
      }
    }
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
