import { startModuleWorker } from '../workerThread.js';
import type { Metric } from '../graph/RoadGraph.js';
import type { ContractionHierarchy, GraphHierarchy, HierarchyGraph } from './ContractionHierarchy.js';
import { contractGraph, type ContractOptions } from './contract.js';
import { buildCellOverlay, overlayCellSizes } from './CellOverlay.js';

/**
 * Contracts the graph for both metrics, builds the cell overlay, and attaches the result as
 * `graph.hierarchy`.
 * `onProgress` gets (nodes done, total) over both metrics together (total = 2 * nodeCount).
 */
export function buildHierarchy(graph: HierarchyGraph, options: ContractOptions = {}): GraphHierarchy {
  const n = graph.nodeCount;
  const progress = options.onProgress;
  const duration = contractGraph(graph, 'duration', { ...options, onProgress: progress && ((d) => progress(d, 2 * n)) });
  const distance = contractGraph(graph, 'distance', { ...options, onProgress: progress && ((d) => progress(n + d, 2 * n)) });
  graph.hierarchy = { duration, distance, overlay: buildCellOverlay(graph, ...overlayCellSizes(graph.nodeCount)) };
  return graph.hierarchy;
}

/**
 * One metric contracted on a worker thread (contractWorker): the adjacency arrays are copied to it
 * (shared instead when they are on SharedArrayBuffers).
 */
function contractInWorker(graph: HierarchyGraph, metric: Metric, cost: Float64Array, options: { onProgress?: (done: number) => void } = {}): Promise<ContractionHierarchy> {
  return new Promise<ContractionHierarchy>((resolve, reject) => {
    const workerData = {
      metric, firstOut: graph.firstOut, firstIn: graph.firstIn, edgeTail: graph.edgeTail, edgeHead: graph.edgeHead, cost,
    };
    const worker = startModuleWorker(import.meta.url, 'contractWorker', workerData);
    worker.on('message', (m: { progress?: number; hierarchy?: ContractionHierarchy }) => {
      if (m.progress !== undefined) options.onProgress?.(m.progress);
      else if (m.hierarchy) {
        resolve(m.hierarchy);
        void worker.terminate();
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => { if (code !== 0) reject(new Error(`contraction worker for ${metric} exited with code ${code}`)); });
  });
}

/**
 * The same as buildHierarchy (identical arrays) with the two metrics contracted at once on two
 * worker threads: about half the wall time on two or more cores (the overlay follows on this
 * thread). The workers get copies of the adjacency arrays and one cost array each (shared instead
 * when they are on SharedArrayBuffers). `onProgress` gets (nodes done over both metrics,
 * 2 * nodeCount); `onOverlay` is called when the contraction is done and the cell overlay's turn comes.
 */
export async function buildHierarchyInWorkers(
  graph: HierarchyGraph, options: { onProgress?: (done: number, total: number) => void; onOverlay?: () => void } = {},
): Promise<GraphHierarchy> {
  const n = graph.nodeCount;
  const done: Record<Metric, number> = { duration: 0, distance: 0 };
  const run = (metric: Metric) => contractInWorker(graph, metric, graph.edgeCost(metric), {
    onProgress: (d) => {
      done[metric] = d;
      options.onProgress?.(done.duration + done.distance, 2 * n);
    },
  });
  const [duration, distance] = await Promise.all([run('duration'), run('distance')]);
  options.onOverlay?.();
  graph.hierarchy = { duration, distance, overlay: buildCellOverlay(graph, ...overlayCellSizes(graph.nodeCount)) };
  return graph.hierarchy;
}
