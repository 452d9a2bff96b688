import Flatbush from 'flatbush';
import { adoptRoadBoxes, buildRoadBoxes, roadBoxes } from '../graph/roadBoxes.js';
import type { RoadGraph } from '../graph/RoadGraph.js';

/**
 * The roads a zone polygon may touch, before the kernels decide: a static packed R-tree over the
 * roads' bounding boxes (roadBoxes: flatbush, Float32 boxes rounded outwards, item i = road i,
 * about 21 bytes per road in one buffer that a zone worker shares instead of building its own).
 */
export class RoadIndex {
  private static readonly cache = new WeakMap<RoadGraph, RoadIndex>();
  private readonly tree: Flatbush;
  /** Item i's road, for an index over some of the roads (ofRoads); undefined: item i is road i. */
  private readonly ids?: Uint32Array;

  /**
   * Builds the index of a graph, takes a built tree, or adopts one from its `data` buffer (e.g.
   * posted by another thread). Throws GRAPH_CORRUPT when that buffer does not index this graph's roads.
   */
  constructor(readonly graph: RoadGraph, data?: ArrayBufferLike | Uint8Array | Flatbush, only?: Uint32Array) {
    this.ids = only;
    this.tree = data instanceof Flatbush ? data
      : data ? adoptRoadBoxes(data, only ? only.length : graph.roadCount) : buildRoadBoxes(graph, only);
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
    if (this.graph.roadCount === 0 || this.ids?.length === 0) return [];
    const found = this.tree.search(minX, minY, maxX, maxY);
    const ids = this.ids;
    if (ids) for (let i = 0; i < found.length; i++) found[i] = ids[found[i]];
    return found;
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
