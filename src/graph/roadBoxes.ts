import Flatbush from 'flatbush';
import { DetourError, ErrorCode } from '../errors.js';
import { fromE7 } from '../geo/coordinates.js';
import { float32Down, float32Up } from '../geo/float32.js';
import type { RoadGraph } from './RoadGraph.js';
import { SharedOrPlainBuffer } from './sharedGraph.js';

const trees = new WeakMap<RoadGraph, Flatbush>();

/**
 * The graph's static packed R-tree over every road's bounding box (flatbush, Float32 boxes
 * rounded outwards, item r = road r), shared by snapping (SnapIndex) and zone calculation
 * (RoadIndex): the one graph.indexes.roadTree holds when the file carried it, else built here and
 * attached there, so a saved graph stores it. About 21 bytes per road, on a SharedArrayBuffer
 * where there is one, so worker threads adopt it instead of building their own. Throws
 * GRAPH_CORRUPT when the stored tree does not index this graph's roads.
 */
export function roadBoxes(graph: RoadGraph): Flatbush {
  let tree = trees.get(graph);
  if (tree) return tree;
  const stored = graph.indexes.roadTree;
  if (stored) {
    tree = adoptRoadBoxes(stored, graph.roadCount);
  } else {
    tree = buildRoadBoxes(graph);
    graph.indexes.roadTree = new Uint8Array(tree.data);
  }
  trees.set(graph, tree);
  return tree;
}

/** A tree over some roads only (item i = road only[i]), or over all of them. */
export function buildRoadBoxes(graph: RoadGraph, only?: Uint32Array): Flatbush {
  const roads = only ? only.length : graph.roadCount;
  const tree = new Flatbush(Math.max(1, roads), 16, Float32Array, SharedOrPlainBuffer);
  // In 1e-7 degree: the box's ends are turned into degrees once, rounded outwards to float32.
  const { nodeLatE7: nodeLat, nodeLonE7: nodeLon, roadFrom, roadTo, roadShapeStart, shapeLatE7: shapeLat, shapeLonE7: shapeLon } = graph;
  for (let i = 0; i < roads; i++) {
    const r = only ? only[i] : i;
    const a = roadFrom[r], b = roadTo[r];
    let minX = Math.min(nodeLon[a], nodeLon[b]), maxX = Math.max(nodeLon[a], nodeLon[b]);
    let minY = Math.min(nodeLat[a], nodeLat[b]), maxY = Math.max(nodeLat[a], nodeLat[b]);
    for (let k = roadShapeStart[r], end = roadShapeStart[r + 1]; k < end; k++) {
      const x = shapeLon[k], y = shapeLat[k];
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    tree.add(float32Down(fromE7(minX)), float32Down(fromE7(minY)), float32Up(fromE7(maxX)), float32Up(fromE7(maxY)));
  }
  // An empty graph still needs one item for flatbush; it lies nowhere a search can reach.
  if (roads === 0) tree.add(Infinity, Infinity, Infinity, Infinity);
  tree.finish();
  return tree;
}

/** A built tree from its bytes (a file section, another thread's buffer), checked against the road count. */
export function adoptRoadBoxes(data: ArrayBufferLike | Uint8Array, roads: number): Flatbush {
  let tree: Flatbush;
  try {
    tree = data instanceof Uint8Array ? Flatbush.from(data.buffer, data.byteOffset) : Flatbush.from(data);
  } catch (err) {
    throw new DetourError(ErrorCode.GRAPH_CORRUPT, `road index buffer is not a flatbush index: ${(err as Error).message}`);
  }
  if (tree.numItems !== Math.max(1, roads)) {
    throw new DetourError(ErrorCode.GRAPH_CORRUPT, `road index holds ${tree.numItems} roads, the graph has ${roads}`);
  }
  return tree;
}
