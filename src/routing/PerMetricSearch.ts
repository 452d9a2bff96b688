import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { AStarSearch } from './AStarSearch.js';
import { HierarchySearch } from './HierarchySearch.js';
import { Landmarks } from './Landmarks.js';
import type { BlockedCellCliques, PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * Most nodes a metric's hierarchy may leave in its uncontracted core before hierarchyEngine routes
 * that metric with ALT: the CH query crosses the core by plain Dijkstra over some 32 arcs a node.
 * Real road networks leave none (the synthetic countries, Gothenburg, the shared extracts); a
 * uniform grid under THE_SHORTEST (80 m links: ties everywhere) leaves 2.5 % of its nodes (24,405
 * on the 1M grid, where routes by the hierarchy took 43.7 ms at the median and by ALT 5.8 ms;
 * contracting further shrinks the core little and slows the query: bench/chGridScale.ts with a
 * coreDegree, README).
 */
export const MAX_CORE_NODES = 2048;

/** Nodes of a metric's hierarchy left in its core. */
export function coreNodes(graph: RoadGraph, metric: Metric): number {
  const h = graph.hierarchy?.[metric];
  return h ? graph.nodeCount - h.coreRank[0] : 0;
}

/**
 * The Router's default engine on a graph with a hierarchy: the hierarchy engine (HierarchySearch),
 * except for a metric whose hierarchy kept a core of more than MAX_CORE_NODES nodes, which routes
 * by ALT (AStarSearch) with `landmarks` landmarks built here, not inside the first request (about
 * 10 s per million nodes); with `landmarks` 0, the hierarchy engine for every metric.
 */
export function hierarchyEngine(graph: RoadGraph, landmarks = 16): PathSearch {
  const ch = new HierarchySearch(graph);
  const cored = (['duration', 'distance'] as const).filter((m) => coreNodes(graph, m) > MAX_CORE_NODES);
  if (cored.length === 0 || landmarks <= 0) return ch;
  const alt = new AStarSearch(graph, { landmarks: cored.map((m) => Landmarks.for(graph, m, landmarks)) });
  return new PerMetricSearch({ duration: cored.includes('duration') ? alt : ch, distance: cored.includes('distance') ? alt : ch }, ch);
}

/**
 * One engine per metric behind one PathSearch (hierarchyEngine). Zones' cells are customized by
 * the hierarchy engine; an ALT metric's search ignores the cliques and walks, as exact.
 */
export class PerMetricSearch implements PathSearch {
  readonly name: string;
  settledCount = 0;

  constructor(readonly engines: Readonly<Record<Metric, PathSearch>>, readonly hierarchy: HierarchySearch) {
    this.name = engines.duration === engines.distance ? engines.duration.name : `${engines.duration.name} / ${engines.distance.name}`;
  }

  find(query: PathQuery): PathResult | null {
    const engine = this.engines[query.metric];
    const found = engine.find(query);
    this.settledCount = engine.settledCount ?? 0;
    return found;
  }

  customize(roads: ArrayLike<number>, blocked: Uint8Array, maxCells: number): BlockedCellCliques | undefined {
    return this.hierarchy.customize(roads, blocked, maxCells);
  }

  customizeCells(cells: Uint32Array, blocked: Uint8Array): BlockedCellCliques | undefined {
    return this.hierarchy.customizeCells(cells, blocked);
  }

  bigCellOf(smallCell: number): number | undefined {
    return this.hierarchy.bigCellOf(smallCell);
  }

  customizeBigCells(cells: Uint32Array, blocked: Uint8Array, lists: readonly BlockedCellCliques[], shared: readonly BlockedCellCliques[]): BlockedCellCliques | undefined {
    return this.hierarchy.customizeBigCells(cells, blocked, lists, shared);
  }

  customizeWork(roads: ArrayLike<number>, maxCells: number): number | undefined {
    return this.hierarchy.customizeWork(roads, maxCells);
  }

  cellsWork(cells: ArrayLike<number>): number {
    return this.hierarchy.cellsWork(cells);
  }

  bigCellsWork(cells: ArrayLike<number>): number {
    return this.hierarchy.bigCellsWork(cells);
  }
}
