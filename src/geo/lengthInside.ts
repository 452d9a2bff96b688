import { haversineMetres } from './haversine.js';
import { pointInPolygonIndexed, pointInPolygonReference, type PreparedPolygon } from './PreparedPolygon.js';


/**
 * lengthInside by the plain method, for differential tests: each piece between two boundary
 * cuts is tested at its midpoint against every polygon edge (O(vertices) per piece).
 */
export function lengthInsideReference(poly: PreparedPolygon, points: Float64Array, from = 0, to = points.length >> 1): number {
  const cuts: number[] = [];
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

// Scratch shared by calls (the work is synchronous): cut parameters, crossing parameters,
// collinear overlaps, and a per-edge stamp so an edge listed in several rows counts once.
const cuts: number[] = [];
const flips: number[] = [];
const overlaps: number[] = [];
let seen = new Int32Array(0);
let stamp = 0;

/**
 * Metres of a polyline that lie inside or on a polygon. The polyline is points[from .. to) of an
 * interleaved lon, lat array (default: all of it). Each segment is cut where it meets the polygon
 * edges near it (through the polygon's row index); one piece is tested with an indexed
 * point-in-polygon and the others follow by the parity of the boundary crossings between them
 * (a vertex on the segment counts by the half-open rule, as in ray casting), so a segment costs
 * O(edges in its rows + cuts log cuts) however jagged the polygon. Pieces along an edge are on
 * the boundary, hence inside. Lengths are haversine; pieces are split by linear interpolation
 * in degrees.
 */
export function lengthInside(poly: PreparedPolygon, points: Float64Array, from = 0, to = points.length >> 1): number {
  const { minX, maxX, minY, maxY, rows, invRowHeight, rowStart, rowEdges, next, xy } = poly;
  if (seen.length < next.length) {
    seen = new Int32Array(next.length);
    stamp = 0;
  }
  let total = 0;
  for (let k = 2 * from; k + 3 < 2 * to; k += 2) {
    const ax = points[k], ay = points[k + 1], bx = points[k + 2], by = points[k + 3];
    if ((ax > bx ? ax : bx) < minX || (ax < bx ? ax : bx) > maxX || (ay > by ? ay : by) < minY || (ay < by ? ay : by) > maxY) continue;
    cuts.length = 0;
    flips.length = 0;
    overlaps.length = 0;
    if (++stamp === 0x7fffffff) {
      seen.fill(0);
      stamp = 1;
    }
    const dx = bx - ax, dy = by - ay;
    let r0 = Math.floor(((ay < by ? ay : by) - minY) * invRowHeight);
    let r1 = Math.floor(((ay > by ? ay : by) - minY) * invRowHeight);
    r0 = r0 < 0 ? 0 : r0 >= rows ? rows - 1 : r0;
    r1 = r1 < 0 ? 0 : r1 >= rows ? rows - 1 : r1;
    for (let r = r0; r <= r1; r++) {
      for (let q = rowStart[r]; q < rowStart[r + 1]; q++) {
        const i = rowEdges[q];
        if (seen[i] === stamp) continue;
        seen[i] = stamp;
        const j = next[i];
        const cx = xy[2 * i], cy = xy[2 * i + 1];
        const ex = xy[2 * j] - cx, ey = xy[2 * j + 1] - cy;
        // Which side of the segment's line each end of the edge is on (> 0: left).
        const sideC = dx * (cy - ay) - dy * (cx - ax);
        const sideE = dx * (cy + ey - ay) - dy * (cx + ex - ax);
        const denom = dx * ey - dy * ex;
        if (denom === 0) {
          if (sideC !== 0) continue; // parallel, apart
          // Collinear: the overlap, if any, is boundary (inside); its ends are cuts.
          const useX = Math.abs(dx) >= Math.abs(dy);
          const t1 = useX ? (cx - ax) / dx : (cy - ay) / dy;
          const t2 = useX ? (cx + ex - ax) / dx : (cy + ey - ay) / dy;
          if (t1 > 0 && t1 < 1) cuts.push(t1);
          if (t2 > 0 && t2 < 1) cuts.push(t2);
          const lo = Math.max(0, Math.min(t1, t2)), hi = Math.min(1, Math.max(t1, t2));
          if (hi > lo) overlaps.push(lo, hi);
          continue;
        }
        const t = ((cx - ax) * ey - (cy - ay) * ex) / denom;
        const u = ((cx - ax) * dy - (cy - ay) * dx) / denom;
        // Half-open rule: an end on the line counts as right of it, so a boundary that only
        // touches the line at a vertex flips twice (or not at all), one that crosses, once. The
        // sides alone decide (a vertex's side is computed alike for both its edges), not u.
        const crosses = sideC > 0 !== sideE > 0;
        if (t > 0 && t < 1 && (crosses || (u >= 0 && u <= 1))) {
          cuts.push(t);
          if (crosses) flips.push(t);
        }
      }
    }
    if (cuts.length === 0) {
      // No boundary on the segment: wholly inside or wholly outside.
      if (pointInPolygonIndexed(poly, ax + dx * 0.5, ay + dy * 0.5)) total += haversineMetres(ay, ax, by, bx);
      continue;
    }
    cuts.push(0, 1);
    cuts.sort((p, q) => p - q);
    flips.sort((p, q) => p - q);
    total += insidePieces(poly, ax, ay, dx, dy);
  }
  return total;
}

/** Metres of the pieces between the sorted cuts that are inside, from one point test and parity. */
function insidePieces(poly: PreparedPolygon, ax: number, ay: number, dx: number, dy: number): number {
  let total = 0;
  let base = -1; // the piece whose status was tested
  let baseInside = false, baseFlips = 0;
  let f = 0; // flips before the current midpoint
  for (let c = 0; c + 1 < cuts.length; c++) {
    const t0 = cuts[c], t1 = cuts[c + 1];
    if (t1 <= t0) continue;
    const tm = (t0 + t1) / 2;
    while (f < flips.length && flips[f] < tm) f++;
    let inside = onOverlap(tm);
    if (!inside) {
      if (base < 0) {
        base = c;
        baseInside = pointInPolygonIndexed(poly, ax + dx * tm, ay + dy * tm);
        baseFlips = f;
      }
      inside = baseInside !== (((f - baseFlips) & 1) === 1);
    }
    if (inside) total += haversineMetres(ay + dy * t0, ax + dx * t0, ay + dy * t1, ax + dx * t1);
  }
  return total;
}

/** Is parameter t within a collinear overlap with an edge? (Overlaps are rare; a linear scan.) */
function onOverlap(t: number): boolean {
  for (let i = 0; i < overlaps.length; i += 2) if (t > overlaps[i] && t < overlaps[i + 1]) return true;
  return false;
}
