import type { RoadGraph } from '../graph/RoadGraph.js';
import type { GraphHierarchy } from './ContractionHierarchy.js';
import { contractGraph, type ContractOptions } from './contract.js';

/**
 * Contracts the graph for both metrics and attaches the result as `graph.hierarchy`.
 * `onProgress` gets (nodes done, total) over both metrics together (total = 2 * nodeCount).
 */
export function buildHierarchy(graph: RoadGraph, options: ContractOptions = {}): GraphHierarchy {
  const n = graph.nodeCount;
  const progress = options.onProgress;
  const duration = contractGraph(graph, 'duration', { ...options, onProgress: progress && ((d) => progress(d, 2 * n)) });
  const distance = contractGraph(graph, 'distance', { ...options, onProgress: progress && ((d) => progress(n + d, 2 * n)) });
  graph.hierarchy = { duration, distance };
  return graph.hierarchy;
}
