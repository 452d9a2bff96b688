import { fromE7 } from '../geo/coordinates.js';
import { COST_STEP, type RoadGraph } from '../graph/RoadGraph.js';

const NO_ENDS = new Int32Array(0);

/**
 * A leg's polyline while it is assembled: interleaved latitude, longitude in one reused
 * Float64Array, read straight from the graph's node and shape arrays, a point that repeats the
 * last one (joins between roads, a snap on a vertex) left out. The result is a copy at its final
 * size, still flat: a country-long leg has thousands of points, and an object per point would cost
 * an allocation each. Not re-entrant: one per Router.
 */
export class LegLine {
  private xy = new Float64Array(8192);
  /** Points appended since the last reset. */
  count = 0;
  /** What pushEdges adds its roads' lengths and durations to (set them before). */
  metres = 0;
  seconds = 0;
  /** Whether pushEdges records where each edge ends (edgeEnds): set while a route with steps is made. */
  recordEnds = false;
  /** Per edge pushed while recordEnds since the last reset, the point its head is (repeats left out, so not a sum of shape counts). */
  private ends = new Int32Array(1024);
  private endCount = 0;

  constructor(private readonly graph: RoadGraph) {}

  reset(): this {
    this.count = 0;
    this.endCount = 0;
    return this;
  }

  /** Appends a point unless it equals the last one. */
  push(lat: number, lon: number): void {
    const n = this.count;
    if (2 * n + 2 > this.xy.length) this.reserve(1);
    const xy = this.xy;
    if (n > 0 && xy[2 * n - 2] === lat && xy[2 * n - 1] === lon) return;
    xy[2 * n] = lat;
    xy[2 * n + 1] = lon;
    this.count = n + 1;
  }

  /** Appends a graph point (1e-7 degree) unless it equals the last one. */
  pushE7(lat: number, lon: number): void {
    this.push(fromE7(lat), fromE7(lon));
  }

  /** Appends points first..last (inclusive, first <= last; none when first > last) of road r's polyline. */
  pushForward(r: number, first: number, last: number): void {
    if (first > last) return;
    const g = this.graph;
    const shapeStart = g.roadShapeStart[r], shapeCount = g.roadShapeStart[r + 1] - shapeStart;
    // Point 0 is node roadFrom, points 1..shapeCount the shape, point shapeCount + 1 node roadTo.
    if (first === 0) this.pushE7(g.nodeLatE7[g.roadFrom[r]], g.nodeLonE7[g.roadFrom[r]]);
    const lat = g.shapeLatE7, lon = g.shapeLonE7;
    for (let k = Math.max(first, 1), end = Math.min(last, shapeCount); k <= end; k++) this.pushE7(lat[shapeStart + k - 1], lon[shapeStart + k - 1]);
    if (last === shapeCount + 1) this.pushE7(g.nodeLatE7[g.roadTo[r]], g.nodeLonE7[g.roadTo[r]]);
  }

  /** Appends points first, first - 1, .., last (first >= last; none when first < last) of road r's polyline. */
  pushBackward(r: number, first: number, last: number): void {
    if (first < last) return;
    const g = this.graph;
    const shapeStart = g.roadShapeStart[r], shapeCount = g.roadShapeStart[r + 1] - shapeStart;
    if (first === shapeCount + 1) this.pushE7(g.nodeLatE7[g.roadTo[r]], g.nodeLonE7[g.roadTo[r]]);
    const lat = g.shapeLatE7, lon = g.shapeLonE7;
    for (let k = Math.min(first, shapeCount), end = Math.max(last, 1); k >= end; k--) this.pushE7(lat[shapeStart + k - 1], lon[shapeStart + k - 1]);
    if (last === 0) this.pushE7(g.nodeLatE7[g.roadFrom[r]], g.nodeLonE7[g.roadFrom[r]]);
  }

  /**
   * Appends the whole polylines of consecutive edges, each from its tail to its head, and adds
   * their roads' lengths and durations to `metres` and `seconds`, in order; with recordEnds, records
   * where each edge ends in the points (edgeEnds: what steps read). A tail is the point appended
   * last (the previous edge's head, or the end of the start road), so only an edge's shape and
   * head are read. The reads, not the copying, are what a long leg costs: cache misses on the
   * roads' arrays.
   */
  pushEdges(edges: readonly number[]): void {
    const ends = this.recordEnds;
    const g = this.graph;
    const { edgeRoad, edgeReversed, roadShapeStart, roadFrom, roadTo, shapeLatE7: shapeLat, shapeLonE7: shapeLon, nodeLatE7: nodeLat, nodeLonE7: nodeLon, roadLengthCm } = g;
    const roadMillis = g.roadMillis;
    let metres = this.metres, seconds = this.seconds;
    if (ends && this.endCount + edges.length > this.ends.length) {
      const grown = new Int32Array(Math.max(2 * this.ends.length, this.endCount + edges.length));
      grown.set(this.ends.subarray(0, this.endCount));
      this.ends = grown;
    }
    const endAt = this.ends;
    let endCount = this.endCount;
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i], r = edgeRoad[e];
      metres += roadLengthCm[r] * COST_STEP.distance;
      seconds += roadMillis[r] * COST_STEP.duration;
      const first = roadShapeStart[r], end = roadShapeStart[r + 1];
      this.reserve(end - first + 1);
      let head: number;
      if (edgeReversed[e] === 0) {
        for (let k = first; k < end; k++) this.pushE7(shapeLat[k], shapeLon[k]);
        head = roadTo[r];
      } else {
        for (let k = end - 1; k >= first; k--) this.pushE7(shapeLat[k], shapeLon[k]);
        head = roadFrom[r];
      }
      this.pushE7(nodeLat[head], nodeLon[head]);
      if (ends) endAt[endCount++] = this.count - 1;
    }
    this.endCount = endCount;
    this.metres = metres;
    this.seconds = seconds;
  }

  /** Where each edge pushed since the reset ends in the points, in an array of its own. */
  edgeEnds(): Int32Array {
    return this.endCount === 0 ? NO_ENDS : this.ends.slice(0, this.endCount);
  }

  /** Room for `points` more points. */
  private reserve(points: number): void {
    const need = 2 * (this.count + points);
    if (need <= this.xy.length) return;
    const grown = new Float64Array(Math.max(need, 2 * this.xy.length));
    grown.set(this.xy);
    this.xy = grown;
  }

  /** The points appended: latitude, longitude interleaved, in an array of their own. */
  coordinates(): Float64Array {
    return this.xy.slice(0, 2 * this.count);
  }
}
