import type { Metric } from '../graph/RoadGraph.js';
import { orderOf, type ContractionHierarchy, type HierarchyGraph } from './ContractionHierarchy.js';
import { contractGraph, type ContractionInput } from './contract.js';

/**
 * Hierarchies of other costs over the same graph (a vehicle class's: its road times, its closed
 * edges at Infinity), each contracted in the order of the graph's own hierarchy of that metric.
 * Other costs on a few roads leave that order a good one, and a fixed order needs only the witness
 * searches (about a seventh of the time of choosing one).
 */
export function contractInOrder(graph: HierarchyGraph, costs: Record<Metric, Float64Array>): Record<Metric, ContractionHierarchy> {
  return { duration: contractMetricInOrder(graph, 'duration', costs.duration), distance: contractMetricInOrder(graph, 'distance', costs.distance) };
}

/** One metric of contractInOrder: `cost` per edge contracted in the order of the graph's own hierarchy of that metric. */
export function contractMetricInOrder(graph: HierarchyGraph, metric: Metric, cost: Float64Array): ContractionHierarchy {
  const h = graph.hierarchy;
  if (!h) throw new Error('contractInOrder needs the graph\'s own hierarchies (their order)');
  const input: ContractionInput = {
    nodeCount: graph.nodeCount, edgeCount: graph.edgeCount, firstOut: graph.firstOut, firstIn: graph.firstIn, edgeTail: graph.edgeTail,
    edgeHead: graph.edgeHead, edgeCost: () => cost,
  };
  return contractGraph(input, metric, { order: orderOf(h[metric]) });
}
