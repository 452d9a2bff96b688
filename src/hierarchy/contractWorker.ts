/**
 * Worker thread entry: contracts one metric of a graph (see buildHierarchyInWorkers). Receives
 * the adjacency arrays and the metric's edge costs; posts progress, then the hierarchy's arrays
 * (transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Metric } from '../graph/RoadGraph.js';
import { HIERARCHY_ARRAY_KEYS } from './ContractionHierarchy.js';
import { contractGraph } from './contract.js';

interface Input {
  metric: Metric;
  firstOut: Uint32Array;
  firstIn: Uint32Array;
  edgeTail: Uint32Array;
  edgeHead: Uint32Array;
  cost: Float64Array;
}

const input = workerData as Input;
const graph = {
  nodeCount: input.firstOut.length - 1,
  edgeCount: input.edgeHead.length,
  firstOut: input.firstOut,
  firstIn: input.firstIn,
  edgeTail: input.edgeTail,
  edgeHead: input.edgeHead,
  edgeCost: () => input.cost,
};
const ch = contractGraph(graph, input.metric, { onProgress: (done) => parentPort!.postMessage({ progress: done }) });
parentPort!.postMessage({ hierarchy: ch }, HIERARCHY_ARRAY_KEYS.map((k) => ch[k].buffer as ArrayBuffer));
