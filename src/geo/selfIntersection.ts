import { OrderedSet } from 'js-sdsl';
import { orient2d } from 'robust-predicates';
import type { Ring } from './PreparedPolygon.js';

/**
 * Finds whether a ring touches itself, in O(n log n) time and O(n) memory whatever its shape
 * (a sawtooth, a spiral or a comb costs what a square of as many vertices costs).
 *
 * Shamos-Hoey sweep: segments enter a status ordered bottom to top at the sweep line (a
 * red-black tree, so every step is O(log n) in the worst case) when the line reaches their left
 * end and leave at their right end; only segments that become neighbours in the status are
 * tested. The leftmost point where two segments meet is reached with those two (or another
 * meeting pair) side by side, so one test finds it; the sweep stops at the first meeting pair.
 * Orientation tests are exact (robust-predicates), so nearly collinear input cannot mislead it.
 */

/** Which segments meet: segment i runs from vertex i to vertex (i + 1) mod n. */
export type SegmentPair = [number, number];

/**
 * The first meeting pair the sweep finds, `[i, j]` with i < j, or null when the ring is simple.
 * Segments that are not neighbours in the ring meet when they share any point (crossing or
 * touching, a vertex on another segment, a repeated vertex); neighbours, which always share their
 * common vertex, meet only when they overlap beyond it (the ring doubles back on itself).
 * The ring must be open and have no repeated consecutive vertices (checkRing ensures both).
 */
export function findSelfIntersection(ring: Ring, work?: SweepWork): SegmentPair | null {
  const steps = selfIntersectionSteps(ring, work);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Events handled between two yields of selfIntersectionSteps: a few milliseconds of work. */
export const SWEEP_SLICE_EVENTS = 4096;

/**
 * findSelfIntersection as a generator that yields every SWEEP_SLICE_EVENTS events, so a caller
 * on a busy thread can let other work run between slices; returns what findSelfIntersection does.
 */
export function* selfIntersectionSteps(ring: Ring, work?: SweepWork): Generator<void, SegmentPair | null, void> {
  if (ring.length < 3) return null;
  const sweep = new RingSweep(ring);
  const found = yield* sweep.run();
  if (work) work.comparisons += sweep.comparisons;
  return found;
}

/** Counts the sweep's geometric tests (status comparisons and pair tests): its cost, for tests. */
export interface SweepWork {
  comparisons: number;
}

/** Sign of the turn a -> b -> c, exactly: 1 left (counter-clockwise), -1 right, 0 collinear. */
function turn(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return -Math.sign(orient2d(ax, ay, bx, by, cx, cy));
}

/** Is (px, py), known to be on the line through a and b, within the closed segment a-b? */
function within(px: number, py: number, ax: number, ay: number, bx: number, by: number): boolean {
  return px >= Math.min(ax, bx) && px <= Math.max(ax, bx) && py >= Math.min(ay, by) && py <= Math.max(ay, by);
}

class RingSweep {
  comparisons = 0;
  private readonly n: number;
  /** Per segment, its left end (smaller x, then smaller y) and its right end. */
  private readonly lx: Float64Array;
  private readonly ly: Float64Array;
  private readonly rx: Float64Array;
  private readonly ry: Float64Array;

  constructor(private readonly ring: Ring) {
    const n = (this.n = ring.length);
    this.lx = new Float64Array(n);
    this.ly = new Float64Array(n);
    this.rx = new Float64Array(n);
    this.ry = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const ax = ring[i][0], ay = ring[i][1];
      const bx = ring[(i + 1) % n][0], by = ring[(i + 1) % n][1];
      const aFirst = ax < bx || (ax === bx && ay < by);
      this.lx[i] = aFirst ? ax : bx;
      this.ly[i] = aFirst ? ay : by;
      this.rx[i] = aFirst ? bx : ax;
      this.ry[i] = aFirst ? by : ay;
    }
  }

  *run(): Generator<void, SegmentPair | null, void> {
    const n = this.n;
    // Event e: segment e >> 1 enters (e even, at its left end) or leaves (e odd, at its right end).
    // By point; at one point every entry comes before any exit, so segments that only touch
    // there are in the status together and get compared.
    const events = new Uint32Array(2 * n);
    const ex = new Float64Array(2 * n), ey = new Float64Array(2 * n);
    for (let e = 0; e < 2 * n; e++) {
      events[e] = e;
      ex[e] = (e & 1) === 0 ? this.lx[e >> 1] : this.rx[e >> 1];
      ey[e] = (e & 1) === 0 ? this.ly[e >> 1] : this.ry[e >> 1];
    }
    events.sort((a, b) => ex[a] - ex[b] || ey[a] - ey[b] || (a & 1) - (b & 1) || a - b);

    const status = new OrderedSet<number>([], (a, b) => this.below(a, b));
    for (let k = 0; k < events.length; k++) {
      if (k % SWEEP_SLICE_EVENTS === SWEEP_SLICE_EVENTS - 1) yield;
      const e = events[k];
      const s = e >> 1;
      if ((e & 1) === 0) {
        status.insert(s);
        const at = status.find(s);
        if (!at.equals(status.begin())) {
          const lower = at.copy().pre().pointer;
          if (this.meet(s, lower)) return ordered(s, lower);
        }
        const upper = at.copy().next();
        if (!upper.equals(status.end()) && this.meet(s, upper.pointer)) return ordered(s, upper.pointer);
      } else {
        const at = status.find(s);
        const upper = at.copy().next();
        if (!at.equals(status.begin()) && !upper.equals(status.end())) {
          const lower = at.copy().pre().pointer;
          if (this.meet(lower, upper.pointer)) return ordered(lower, upper.pointer);
        }
        status.eraseElementByIterator(at);
      }
    }
    return null;
  }

  /**
   * The status order: negative when segment a lies below segment b where the sweep line crosses
   * both. It only compares a segment being inserted or removed with ones in the status, whose
   * x-ranges overlap it; segments that meet may be ordered either way (the sweep stops at them).
   */
  private below(a: number, b: number): number {
    if (a === b) return 0;
    this.comparisons++;
    const { lx, ly, rx, ry } = this;
    let o: number;
    if (lx[a] === lx[b] && ly[a] === ly[b]) {
      // Same left end: the steeper one is above.
      o = turn(lx[a], ly[a], rx[a], ry[a], rx[b], ry[b]);
    } else if (lx[a] < lx[b] || (lx[a] === lx[b] && ly[a] < ly[b])) {
      // b starts later: above a when its left end is left of (above) a's direction.
      o = turn(lx[a], ly[a], rx[a], ry[a], lx[b], ly[b]) || turn(lx[a], ly[a], rx[a], ry[a], rx[b], ry[b]);
    } else {
      o = -(turn(lx[b], ly[b], rx[b], ry[b], lx[a], ly[a]) || turn(lx[b], ly[b], rx[b], ry[b], rx[a], ry[a]));
    }
    // o > 0: b is above a. Collinear overlaps meet anyway; any fixed order serves.
    return o > 0 ? -1 : o < 0 ? 1 : a - b;
  }

  /** Do segments i and j meet in the sense of findSelfIntersection? */
  private meet(i: number, j: number): boolean {
    const n = this.n, r = this.ring;
    this.comparisons++;
    if (j === (i + 1) % n || i === (j + 1) % n) {
      // Neighbours share vertex v; they overlap when the other two ends lie on one ray from v.
      const [first, second] = j === (i + 1) % n ? [i, j] : [j, i];
      const v = r[second], p = r[first], q = r[(second + 1) % n];
      if (turn(v[0], v[1], p[0], p[1], q[0], q[1]) !== 0) return false;
      return (p[0] - v[0]) * (q[0] - v[0]) + (p[1] - v[1]) * (q[1] - v[1]) > 0;
    }
    const ax = r[i][0], ay = r[i][1], bx = r[(i + 1) % n][0], by = r[(i + 1) % n][1];
    const cx = r[j][0], cy = r[j][1], dx = r[(j + 1) % n][0], dy = r[(j + 1) % n][1];
    const o1 = turn(ax, ay, bx, by, cx, cy), o2 = turn(ax, ay, bx, by, dx, dy);
    const o3 = turn(cx, cy, dx, dy, ax, ay), o4 = turn(cx, cy, dx, dy, bx, by);
    if (o1 !== o2 && o3 !== o4) return true;
    return (o1 === 0 && within(cx, cy, ax, ay, bx, by)) || (o2 === 0 && within(dx, dy, ax, ay, bx, by)) ||
      (o3 === 0 && within(ax, ay, cx, cy, dx, dy)) || (o4 === 0 && within(bx, by, cx, cy, dx, dy));
  }
}

function ordered(a: number, b: number): SegmentPair {
  return a < b ? [a, b] : [b, a];
}

/** Do all vertices of the ring lie on one line (exactly)? Such a ring has no area. */
export function allOnOneLine(ring: Ring): boolean {
  const n = ring.length;
  let k = 1;
  while (k < n && ring[k][0] === ring[0][0] && ring[k][1] === ring[0][1]) k++;
  if (k === n) return true;
  const [ax, ay] = ring[0], [bx, by] = ring[k];
  for (let i = k + 1; i < n; i++) if (turn(ax, ay, bx, by, ring[i][0], ring[i][1]) !== 0) return false;
  return true;
}
