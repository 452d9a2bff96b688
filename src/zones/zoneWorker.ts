/**
 * Worker thread for large zone calculations: works on the caller's graph and road index through
 * SharedArrayBuffers sent once at start (nothing is copied or rebuilt), and answers {id, zone}
 * messages with the blocked roads.
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads';
import { RoadGraph, type GraphMeta, type RoadGraphArrays } from '../graph/RoadGraph.js';
import { calculateZone } from './calculateZone.js';
import { RoadIndex } from './RoadIndex.js';
import type { Zone } from './Zone.js';

/** What ZoneCalculator posts to a new zone worker. */
export interface ZoneWorkerData {
  /** The graph's arrays, on SharedArrayBuffers. */
  arrays: RoadGraphArrays;
  meta: GraphMeta;
  /** RoadIndex.data of the same graph. */
  roadIndex: ArrayBufferLike;
}

if (!isMainThread && parentPort) {
  const { arrays, meta, roadIndex } = workerData as ZoneWorkerData;
  const graph = new RoadGraph(arrays, meta);
  RoadIndex.adopt(graph, roadIndex);
  const port = parentPort;
  port.on('message', ({ id, zone }: { id: number; zone: Zone }) => {
    const result = calculateZone(graph, zone);
    port.postMessage({
      id,
      status: result.status,
      roads: result.roads,
      edgeCount: result.edgeCount,
      metresInside: result.metresInside,
      blockedLength: result.blockedLength,
      millis: result.millis,
    });
  });
}
