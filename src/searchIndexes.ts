import { SnapIndex } from './graph/SnapIndex.js';
import { roadBearings } from './graph/roadBearings.js';
import type { RoadGraph } from './graph/RoadGraph.js';
import { RoadIndex } from './zones/RoadIndex.js';

/**
 * Builds every search index a graph file can carry (graph.indexes: the tree of road boxes that
 * snapping and zone calculation share, snapping's per-road facts, the roads' bearings that
 * turn-by-turn steps read), so that saving the graph stores them and a service loads them instead of building them at start (seconds on a
 * 5M-node country). Indexes already there are kept.
 */
export function attachSearchIndexes(graph: RoadGraph): void {
  SnapIndex.for(graph);
  RoadIndex.for(graph);
  roadBearings(graph);
}
