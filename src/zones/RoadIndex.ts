import RBush from 'rbush';
import type { RoadGraph } from '../graph/RoadGraph.js';

interface RoadBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  road: number;
}

/**
 * An rbush R-tree over the bounding boxes of a graph's roads (bulk-loaded once per graph), to find
 * the roads a zone polygon may touch before the kernels decide.
 */
export class RoadIndex {
  private static readonly cache = new WeakMap<RoadGraph, RoadIndex>();
  private readonly tree = new RBush<RoadBox>();

  constructor(readonly graph: RoadGraph) {
    const boxes: RoadBox[] = new Array(graph.roadCount);
    for (let r = 0; r < graph.roadCount; r++) {
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      for (let k = 0, n = graph.roadPointCount(r); k < n; k++) {
        const x = graph.roadPointLon(r, k), y = graph.roadPointLat(r, k);
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
      boxes[r] = { minX, minY, maxX, maxY, road: r };
    }
    this.tree.load(boxes);
  }

  /** The index of a graph, built on first use. */
  static for(graph: RoadGraph): RoadIndex {
    let index = RoadIndex.cache.get(graph);
    if (!index) RoadIndex.cache.set(graph, (index = new RoadIndex(graph)));
    return index;
  }

  /** Roads whose bounding box meets the box (degrees). */
  roadsInBox(minX: number, minY: number, maxX: number, maxY: number): number[] {
    return this.tree.search({ minX, minY, maxX, maxY }).map((b) => b.road);
  }

  /** A road's polyline as interleaved lon, lat. */
  polyline(road: number): Float64Array {
    const g = this.graph;
    const n = g.roadPointCount(road);
    const out = new Float64Array(2 * n);
    for (let k = 0; k < n; k++) {
      out[2 * k] = g.roadPointLon(road, k);
      out[2 * k + 1] = g.roadPointLat(road, k);
    }
    return out;
  }
}
