/**
 * Worker thread for large zone calculations: holds its own copy of the graph (sent once at start)
 * and answers {id, zone} messages with the blocked roads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RoadGraph, type GraphMeta, type RoadGraphArrays } from '../graph/RoadGraph.js';
import { calculateZone } from './calculateZone.js';
import type { Zone } from './Zone.js';

const { arrays, meta } = workerData as { arrays: RoadGraphArrays; meta: GraphMeta };
const graph = new RoadGraph(arrays, meta);

parentPort!.on('message', ({ id, zone }: { id: number; zone: Zone }) => {
  const result = calculateZone(graph, zone);
  parentPort!.postMessage({
    id,
    status: result.status,
    roads: result.roads,
    edgeCount: result.edgeCount,
    metresInside: result.metresInside,
    blockedLength: result.blockedLength,
    millis: result.millis,
  });
});
