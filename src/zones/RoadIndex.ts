import { adoptRoadBoxes, buildRoadBoxes, roadBoxes, RoadBoxes } from '../graph/roadBoxes.js';
import type { RoadGraph } from '../graph/RoadGraph.js';

/**
 * The roads a zone polygon may touch, before the kernels decide: a static packed R-tree over the
 * roads' bounding boxes (roadBoxes: flatbush, Float32 boxes rounded outwards, one box per eight
 * consecutive roads, under 3 bytes per road in one buffer that a zone worker shares instead of
 * building its own).
 */
export class RoadIndex {
  private static readonly cache = new WeakMap<RoadGraph, RoadIndex>();
  private readonly tree: RoadBoxes;

  /**
   * Builds the index of a graph, takes a built tree, or adopts one from its `data` buffer (e.g.
   * posted by another thread). Throws GRAPH_CORRUPT when that buffer does not index this graph's roads.
   */
  constructor(readonly graph: RoadGraph, data?: ArrayBufferLike | Uint8Array | RoadBoxes, only?: Uint32Array) {
    this.tree = data instanceof RoadBoxes ? data
      : data ? adoptRoadBoxes(data, graph, only) : buildRoadBoxes(graph, only);
  }

  /** An index over some roads only (e.g. the major ones a map shows at low zoom). */
  static ofRoads(graph: RoadGraph, roads: Uint32Array): RoadIndex {
    return new RoadIndex(graph, undefined, roads);
  }

  /**
   * The index of a graph: over the tree of roadBoxes(graph) (the one its file carried, else built
   * on first use and attached to graph.indexes, so saving the graph stores it; snapping uses the same).
   */
  static for(graph: RoadGraph): RoadIndex {
    let index = RoadIndex.cache.get(graph);
    if (!index) {
      RoadIndex.cache.set(graph, (index = new RoadIndex(graph, roadBoxes(graph))));
    }
    return index;
  }

  /** The index's whole memory (a SharedArrayBuffer when available): what graph.indexes.roadTree views. */
  get data(): ArrayBufferLike {
    return this.tree.data;
  }

  /** Bytes held by the index. */
  byteSize(): number {
    return this.tree.data.byteLength;
  }

  /** Roads whose bounding box meets the box (degrees); cost grows with the roads found, not the graph. */
  roadsInBox(minX: number, minY: number, maxX: number, maxY: number): number[] {
    return this.tree.search(minX, minY, maxX, maxY);
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
