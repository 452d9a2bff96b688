// Geometry kernels for restriction zones, compiled to build/kernels.wasm by `asc` (asconfig.json).
//
// A prepared polygon lives in linear memory (allocated by the host with `allocate`):
//   xy       f64[2 * V]  vertices of all rings, interleaved x (longitude), y (latitude)
//   next     i32[V]      index of the vertex each edge runs to (rings close implicitly)
//   rowStart i32[R + 1]  y-slab index: the edges whose y-range meets row r are
//   rowEdges i32[]       rowEdges[rowStart[r] .. rowStart[r + 1]); an edge is named by its first vertex
// Rows split [minY, maxY] evenly; invRowHeight = R / (maxY - minY). A point test reads one row,
// so it costs the edges near the point, not all edges.
//
// Semantics: even-odd rule over all rings (holes are rings too); points on the boundary are inside.
// Every entry point works on raw pointers so a batch crosses the JS/WASM boundary once.

/** Reserves `bytes` of linear memory (8-byte aligned) and returns its address. */
export function allocate(bytes: usize): usize {
  return heap.alloc(bytes);
}

/** Frees everything `allocate` returned (the stub runtime's bump allocator starts over). */
export function resetHeap(): void {
  heap.reset();
}

@inline function X(xy: usize, i: i32): f64 {
  return load<f64>(xy + (<usize>i << 4));
}

@inline function Y(xy: usize, i: i32): f64 {
  return load<f64>(xy + (<usize>i << 4) + 8);
}

@inline function I32(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

/** Is (px, py) on the segment (ax, ay)-(bx, by)? Exact for exactly representable inputs. */
@inline function onSegment(px: f64, py: f64, ax: f64, ay: f64, bx: f64, by: f64): bool {
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  if (cross != 0.0) return false;
  return px >= min(ax, bx) && px <= max(ax, bx) && py >= min(ay, by) && py <= max(ay, by);
}

@inline function rowOf(y: f64, minY: f64, invRowHeight: f64, rows: i32): i32 {
  let r = <i32>Math.floor((y - minY) * invRowHeight);
  if (r >= rows) r = rows - 1; // y == maxY
  return r;
}

function pointIn(
  px: f64, py: f64,
  xy: usize, next: usize, rowStart: usize, rowEdges: usize, rows: i32,
  minX: f64, minY: f64, maxX: f64, maxY: f64, invRowHeight: f64,
): i32 {
  if (!(px >= minX && px <= maxX && py >= minY && py <= maxY)) return 0; // also false for NaN
  const row = rowOf(py, minY, invRowHeight, rows);
  const end = I32(rowStart, row + 1);
  let inside = 0;
  for (let k = I32(rowStart, row); k < end; k++) {
    const i = I32(rowEdges, k);
    const j = I32(next, i);
    const xi = X(xy, i), yi = Y(xy, i), xj = X(xy, j), yj = Y(xy, j);
    if (onSegment(px, py, xi, yi, xj, yj)) return 1;
    // Ray to +x; the half-open rule counts a vertex on the ray once.
    if ((yi > py) != (yj > py)) {
      const xCross = xi + ((py - yi) * (xj - xi)) / (yj - yi);
      if (px < xCross) inside ^= 1;
    }
  }
  return inside;
}

/** Sign of the turn a -> b -> c: 1 left, -1 right, 0 collinear. */
@inline function orient(ax: f64, ay: f64, bx: f64, by: f64, cx: f64, cy: f64): i32 {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/** Do closed segments p1-p2 and q1-q2 share at least one point? */
@inline function segmentsMeet(
  p1x: f64, p1y: f64, p2x: f64, p2y: f64, q1x: f64, q1y: f64, q2x: f64, q2y: f64,
): bool {
  const o1 = orient(p1x, p1y, p2x, p2y, q1x, q1y);
  const o2 = orient(p1x, p1y, p2x, p2y, q2x, q2y);
  const o3 = orient(q1x, q1y, q2x, q2y, p1x, p1y);
  const o4 = orient(q1x, q1y, q2x, q2y, p2x, p2y);
  if (o1 != o2 && o3 != o4) return true;
  if (o1 == 0 && onSegment(q1x, q1y, p1x, p1y, p2x, p2y)) return true;
  if (o2 == 0 && onSegment(q2x, q2y, p1x, p1y, p2x, p2y)) return true;
  if (o3 == 0 && onSegment(p1x, p1y, q1x, q1y, q2x, q2y)) return true;
  if (o4 == 0 && onSegment(p2x, p2y, q1x, q1y, q2x, q2y)) return true;
  return false;
}

function segmentTouches(
  ax: f64, ay: f64, bx: f64, by: f64,
  xy: usize, next: usize, rowStart: usize, rowEdges: usize, rows: i32,
  minX: f64, minY: f64, maxX: f64, maxY: f64, invRowHeight: f64,
): i32 {
  if (max(ax, bx) < minX || min(ax, bx) > maxX || max(ay, by) < minY || min(ay, by) > maxY) return 0;
  if (pointIn(ax, ay, xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight)) return 1;
  if (pointIn(bx, by, xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight)) return 1;
  // Both ends outside: the segment touches the polygon only if it meets an edge.
  const r0 = rowOf(max(min(ay, by), minY), minY, invRowHeight, rows);
  const r1 = rowOf(min(max(ay, by), maxY), minY, invRowHeight, rows);
  for (let r = r0; r <= r1; r++) {
    const end = I32(rowStart, r + 1);
    for (let k = I32(rowStart, r); k < end; k++) {
      const i = I32(rowEdges, k);
      const j = I32(next, i);
      if (segmentsMeet(ax, ay, bx, by, X(xy, i), Y(xy, i), X(xy, j), Y(xy, j))) return 1;
    }
  }
  return 0;
}

/** out[i] = 1 when point i (interleaved x, y at pts) is inside or on the polygon, else 0. */
export function classifyPoints(
  pts: usize, count: i32, out: usize,
  xy: usize, next: usize, rowStart: usize, rowEdges: usize, rows: i32,
  minX: f64, minY: f64, maxX: f64, maxY: f64, invRowHeight: f64,
): i32 {
  let hits = 0;
  for (let i = 0; i < count; i++) {
    const p = pts + (<usize>i << 4);
    const v = pointIn(load<f64>(p), load<f64>(p + 8), xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight);
    store<u8>(out + <usize>i, <u8>v);
    hits += v;
  }
  return hits;
}

/** out[i] = 1 when segment i (ax, ay, bx, by at segs) lies inside, crosses or touches the polygon. */
export function classifySegments(
  segs: usize, count: i32, out: usize,
  xy: usize, next: usize, rowStart: usize, rowEdges: usize, rows: i32,
  minX: f64, minY: f64, maxX: f64, maxY: f64, invRowHeight: f64,
): i32 {
  let hits = 0;
  for (let i = 0; i < count; i++) {
    const s = segs + (<usize>i << 5);
    const v = segmentTouches(
      load<f64>(s), load<f64>(s + 8), load<f64>(s + 16), load<f64>(s + 24),
      xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight,
    );
    store<u8>(out + <usize>i, <u8>v);
    hits += v;
  }
  return hits;
}

/**
 * Polylines: line i has points pts[start[i] .. start[i + 1]) (interleaved x, y). out[i] = 1 when
 * any of its segments touches the polygon (a one-point line: when the point does).
 */
export function classifyPolylines(
  pts: usize, start: usize, count: i32, out: usize,
  xy: usize, next: usize, rowStart: usize, rowEdges: usize, rows: i32,
  minX: f64, minY: f64, maxX: f64, maxY: f64, invRowHeight: f64,
): i32 {
  let hits = 0;
  for (let i = 0; i < count; i++) {
    const a = I32(start, i);
    const b = I32(start, i + 1);
    let v = 0;
    if (b - a == 1) {
      v = pointIn(X(pts, a), Y(pts, a), xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight);
    }
    for (let k = a; k + 1 < b && v == 0; k++) {
      v = segmentTouches(
        X(pts, k), Y(pts, k), X(pts, k + 1), Y(pts, k + 1),
        xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight,
      );
    }
    store<u8>(out + <usize>i, <u8>v);
    hits += v;
  }
  return hits;
}
