import type { LatLon } from '../geo/coordinates.js';
import type { RoadGraph } from '../graph/RoadGraph.js';

/**
 * A leg's polyline while it is assembled: interleaved latitude, longitude in one reused
 * Float64Array, read straight from the graph's node and shape arrays, a point that repeats the
 * last one (joins between roads, a snap on a vertex) left out. The LatLon objects of the result
 * are made once at the end, at their final count: a country-long leg has thousands of points,
 * and building them one push and one comparison of objects at a time was over half of a free
 * route's time on the 5M-node country. Not re-entrant: one per Router.
 */
export class LegLine {
  private xy = new Float64Array(8192);
  /** Points appended since the last reset. */
  count = 0;

  constructor(private readonly graph: RoadGraph) {}

  reset(): this {
    this.count = 0;
    return this;
  }

  /** Appends a point unless it equals the last one. */
  push(lat: number, lon: number): void {
    const n = this.count;
    let xy = this.xy;
    if (n > 0 && xy[2 * n - 2] === lat && xy[2 * n - 1] === lon) return;
    if (2 * n + 2 > xy.length) {
      const grown = new Float64Array(xy.length * 2);
      grown.set(xy);
      this.xy = xy = grown;
    }
    xy[2 * n] = lat;
    xy[2 * n + 1] = lon;
    this.count = n + 1;
  }

  /** Appends points first..last (inclusive, first <= last; none when first > last) of road r's polyline. */
  pushForward(r: number, first: number, last: number): void {
    if (first > last) return;
    const g = this.graph;
    const shapeStart = g.roadShapeStart[r], shapeCount = g.roadShapeStart[r + 1] - shapeStart;
    // Point 0 is node roadFrom, points 1..shapeCount the shape, point shapeCount + 1 node roadTo.
    if (first === 0) this.push(g.nodeLat[g.roadFrom[r]], g.nodeLon[g.roadFrom[r]]);
    const lat = g.shapeLat, lon = g.shapeLon;
    for (let k = Math.max(first, 1), end = Math.min(last, shapeCount); k <= end; k++) this.push(lat[shapeStart + k - 1], lon[shapeStart + k - 1]);
    if (last === shapeCount + 1) this.push(g.nodeLat[g.roadTo[r]], g.nodeLon[g.roadTo[r]]);
  }

  /** Appends points first, first - 1, .., last (first >= last; none when first < last) of road r's polyline. */
  pushBackward(r: number, first: number, last: number): void {
    if (first < last) return;
    const g = this.graph;
    const shapeStart = g.roadShapeStart[r], shapeCount = g.roadShapeStart[r + 1] - shapeStart;
    if (first === shapeCount + 1) this.push(g.nodeLat[g.roadTo[r]], g.nodeLon[g.roadTo[r]]);
    const lat = g.shapeLat, lon = g.shapeLon;
    for (let k = Math.min(first, shapeCount), end = Math.max(last, 1); k >= end; k--) this.push(lat[shapeStart + k - 1], lon[shapeStart + k - 1]);
    if (last === 0) this.push(g.nodeLat[g.roadFrom[r]], g.nodeLon[g.roadFrom[r]]);
  }

  /** The points appended, as LatLon objects. */
  points(): LatLon[] {
    const n = this.count, xy = this.xy;
    const out: LatLon[] = new Array<LatLon>(n);
    for (let i = 0; i < n; i++) out[i] = { latitude: xy[2 * i], longitude: xy[2 * i + 1] };
    return out;
  }
}
