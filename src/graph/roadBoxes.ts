import Flatbush from 'flatbush';
import { DetourError, ErrorCode } from '../errors.js';
import { fromE7 } from '../geo/coordinates.js';
import { float32Down, float32Up } from '../geo/float32.js';
import type { RoadGraph } from './RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';

/**
 * Consecutive roads per box of the road tree. Roads are numbered in spatial order (by their lower
 * end node, GraphBuilder), so eight neighbours share one box and the tree holds an eighth of the
 * items: 21 bytes per road with a box each (12 per directed edge on the 5M-node country, the
 * largest index in memory) against under 3 here; a search then tests each road of a box it
 * meets against the road's own box, computed from its points.
 */
export const ROADS_PER_BOX = 8;

const scratch = new Int32Array(4);

/** Road r's bounding box in 1e-7 degree (min lon, min lat, max lon, max lat) into `box`. */
function roadBoxE7(graph: RoadGraph, r: number, box: Int32Array): void {
  const { nodeLatE7: nodeLat, nodeLonE7: nodeLon, roadShapeStart, shapeLatE7: shapeLat, shapeLonE7: shapeLon } = graph;
  const a = graph.roadFrom[r], b = graph.roadTo[r];
  let minX = Math.min(nodeLon[a], nodeLon[b]), maxX = Math.max(nodeLon[a], nodeLon[b]);
  let minY = Math.min(nodeLat[a], nodeLat[b]), maxY = Math.max(nodeLat[a], nodeLat[b]);
  for (let k = roadShapeStart[r], end = roadShapeStart[r + 1]; k < end; k++) {
    const x = shapeLon[k], y = shapeLat[k];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  box[0] = minX; box[1] = minY; box[2] = maxX; box[3] = maxY;
}

/**
 * A static packed R-tree (flatbush, Float32 boxes rounded outwards) over groups of
 * ROADS_PER_BOX consecutive roads, shared by snapping (SnapIndex), zone calculation and map tiles
 * (RoadIndex). Item g covers entries g * ROADS_PER_BOX onwards: roads, or the ids of a subset.
 */
export class RoadBoxes {
  constructor(readonly tree: Flatbush, private readonly graph: RoadGraph, private readonly ids?: Uint32Array) {}

  /** The tree's whole memory (a SharedArrayBuffer when available). */
  get data(): ArrayBufferLike {
    return this.tree.data;
  }

  /**
   * Roads whose exact bounding box meets the box (degrees, bounds included), in tree order; the
   * cost grows with the boxes found, not the graph. With `exact` false, every road of the boxes
   * met instead (a superset: for a caller that tests the roads' points anyway, as snapping does).
   */
  search(minX: number, minY: number, maxX: number, maxY: number, exact = true): number[] {
    const count = this.ids ? this.ids.length : this.graph.roadCount;
    const found: number[] = [];
    if (count === 0) return found;
    const graph = this.graph, ids = this.ids, box = scratch;
    for (const g of this.tree.search(minX, minY, maxX, maxY)) {
      for (let i = g * ROADS_PER_BOX, end = Math.min(count, i + ROADS_PER_BOX); i < end; i++) {
        const r = ids ? ids[i] : i;
        if (!exact) {
          found.push(r);
          continue;
        }
        roadBoxE7(graph, r, box);
        if (fromE7(box[0]) <= maxX && fromE7(box[2]) >= minX && fromE7(box[1]) <= maxY && fromE7(box[3]) >= minY) found.push(r);
      }
    }
    return found;
  }
}

const trees = new WeakMap<RoadGraph, RoadBoxes>();

/**
 * The graph's road tree: the one graph.indexes.roadTree holds when the file carried it, else
 * built here and attached there, so a saved graph stores it. On a SharedArrayBuffer where there
 * is one, so worker threads adopt it instead of building their own. Throws GRAPH_CORRUPT when
 * the stored tree does not index this graph's roads.
 */
export function roadBoxes(graph: RoadGraph): RoadBoxes {
  let boxes = trees.get(graph);
  if (boxes) return boxes;
  const stored = graph.indexes.roadTree;
  if (stored) {
    boxes = adoptRoadBoxes(stored, graph);
  } else {
    boxes = buildRoadBoxes(graph);
    graph.indexes.roadTree = new Uint8Array(boxes.data);
  }
  trees.set(graph, boxes);
  return boxes;
}

/** A tree over some roads only (entry i = road only[i]), or over all of them. */
export function buildRoadBoxes(graph: RoadGraph, only?: Uint32Array): RoadBoxes {
  const count = only ? only.length : graph.roadCount;
  const groups = Math.ceil(count / ROADS_PER_BOX);
  const tree = new Flatbush(Math.max(1, groups), 16, Float32Array, SharedOrPlainBuffer);
  // In 1e-7 degree: the box's ends are turned into degrees once, rounded outwards to float32.
  const box = scratch;
  for (let g = 0; g < groups; g++) {
    let minX = 2147483647, minY = 2147483647, maxX = -2147483648, maxY = -2147483648;
    for (let i = g * ROADS_PER_BOX, end = Math.min(count, i + ROADS_PER_BOX); i < end; i++) {
      roadBoxE7(graph, only ? only[i] : i, box);
      if (box[0] < minX) minX = box[0];
      if (box[1] < minY) minY = box[1];
      if (box[2] > maxX) maxX = box[2];
      if (box[3] > maxY) maxY = box[3];
    }
    tree.add(float32Down(fromE7(minX)), float32Down(fromE7(minY)), float32Up(fromE7(maxX)), float32Up(fromE7(maxY)));
  }
  // An empty graph still needs one item for flatbush; it lies nowhere a search can reach.
  if (groups === 0) tree.add(Infinity, Infinity, Infinity, Infinity);
  tree.finish();
  return new RoadBoxes(tree, graph, only);
}

/**
 * A built tree from its bytes (a file section, another thread's buffer), checked against the
 * number of roads it covers (the graph's, or the subset's `only`).
 */
export function adoptRoadBoxes(data: ArrayBufferLike | Uint8Array, graph: RoadGraph, only?: Uint32Array): RoadBoxes {
  let tree: Flatbush;
  try {
    tree = data instanceof Uint8Array ? Flatbush.from(data.buffer, data.byteOffset) : Flatbush.from(data);
  } catch (err) {
    throw new DetourError(ErrorCode.GRAPH_CORRUPT, `road index buffer is not a flatbush index: ${(err as Error).message}`);
  }
  const roads = only ? only.length : graph.roadCount;
  if (tree.numItems !== Math.max(1, Math.ceil(roads / ROADS_PER_BOX))) {
    throw new DetourError(
      ErrorCode.GRAPH_CORRUPT,
      `road index holds ${tree.numItems} boxes of ${ROADS_PER_BOX} roads, the graph has ${roads} roads`,
    );
  }
  return new RoadBoxes(tree, graph, only);
}
