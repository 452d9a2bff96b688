import Flatbush from 'flatbush';
import { DetourError, ErrorCode } from '../errors.js';
import { float32Down, float32Up } from '../geo/float32.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { SharedOrPlainBuffer } from '../graph/sharedGraph.js';

/**
 * A static packed R-tree (flatbush, Float32 boxes rounded outwards) over the bounding boxes of a
 * graph's roads, item i = road i, to find the roads a zone polygon may touch before the kernels
 * decide. About 21 bytes per road in one buffer (a SharedArrayBuffer where available, so a zone
 * worker can use the same index without building or copying it).
 */
export class RoadIndex {
  private static readonly cache = new WeakMap<RoadGraph, RoadIndex>();
  private readonly tree: Flatbush;
  /** Item i's road, for an index over some of the roads (ofRoads); undefined: item i is road i. */
  private readonly ids?: Uint32Array;

  /**
   * Builds the index of a graph, or adopts a built one from its `data` buffer (e.g. posted by
   * another thread). Throws GRAPH_CORRUPT when that buffer does not index this graph's roads.
   */
  constructor(readonly graph: RoadGraph, data?: ArrayBufferLike | Uint8Array, only?: Uint32Array) {
    const roads = only ? only.length : graph.roadCount;
    this.ids = only;
    if (data) {
      let tree: Flatbush;
      try {
        tree = data instanceof Uint8Array ? Flatbush.from(data.buffer, data.byteOffset) : Flatbush.from(data);
      } catch (err) {
        throw new DetourError(ErrorCode.GRAPH_CORRUPT, `road index buffer is not a flatbush index: ${(err as Error).message}`);
      }
      if (tree.numItems !== Math.max(1, roads)) {
        throw new DetourError(ErrorCode.GRAPH_CORRUPT, `road index holds ${tree.numItems} roads, the graph has ${roads}`);
      }
      this.tree = tree;
      return;
    }
    this.tree = new Flatbush(Math.max(1, roads), 16, Float32Array, SharedOrPlainBuffer);
    const { nodeLat, nodeLon, roadFrom, roadTo, roadShapeStart, shapeLat, shapeLon } = graph;
    for (let i = 0; i < roads; i++) {
      const r = only ? only[i] : i;
      const a = roadFrom[r], b = roadTo[r];
      let minX = Math.min(nodeLon[a], nodeLon[b]), maxX = Math.max(nodeLon[a], nodeLon[b]);
      let minY = Math.min(nodeLat[a], nodeLat[b]), maxY = Math.max(nodeLat[a], nodeLat[b]);
      for (let i = roadShapeStart[r], end = roadShapeStart[r + 1]; i < end; i++) {
        const x = shapeLon[i], y = shapeLat[i];
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
      this.tree.add(float32Down(minX), float32Down(minY), float32Up(maxX), float32Up(maxY));
    }
    // An empty graph still needs one item for flatbush; it lies nowhere a polygon can reach.
    if (roads === 0) this.tree.add(Infinity, Infinity, Infinity, Infinity);
    this.tree.finish();
  }

  /** An index over some roads only (e.g. the major ones a map shows at low zoom). */
  static ofRoads(graph: RoadGraph, roads: Uint32Array): RoadIndex {
    return new RoadIndex(graph, undefined, roads);
  }

  /**
   * The index of a graph: the one its file carried (graph.indexes.roadTree), else built on first
   * use and attached there, so saving the graph stores it.
   */
  static for(graph: RoadGraph): RoadIndex {
    let index = RoadIndex.cache.get(graph);
    if (!index) {
      const stored = graph.indexes.roadTree;
      index = new RoadIndex(graph, stored);
      if (!stored) graph.indexes.roadTree = new Uint8Array(index.data);
      RoadIndex.cache.set(graph, index);
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
