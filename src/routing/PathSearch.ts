import { DetourError, ErrorCode } from '../errors.js';
import type { Metric } from '../graph/RoadGraph.js';
import type { CellCliques, PenalisedCellCliques } from '../hierarchy/CellOverlay.js';
import type { RoadSchedule } from './RoadSchedule.js';

/**
 * Where a search starts or ends: a graph node plus the cost of the partial road between the
 * snapped point and that node ("phantom node" in OSRM's terms).
 */
export interface Endpoint {
  node: number;
  /** Cost (metres or seconds) between the snapped point and `node`. */
  cost: number;
  /** True when this part is travelled against the road's shape direction. */
  reversed: boolean;
}

/** What one search is asked: leave from any source endpoint, arrive at any target endpoint. */
export interface PathQuery {
  sources: Endpoint[];
  targets: Endpoint[];
  metric: Metric;
  /** The target position in degrees: the heuristic aims here. */
  targetLatitude: number;
  targetLongitude: number;
  /** Per road, 1 when the road must not be used. */
  blockedRoads?: Uint8Array;
  /**
   * When known, lists whose union holds every road set in blockedRoads (more is harmless), so
   * a search that cares where the blocked roads are need not scan the whole mask.
   */
  blockedRoadLists?: readonly ArrayLike<number>[];
  /**
   * Per list of blockedRoadLists, when known: the small cells of the overlay its roads touch, with
   * cliques that avoid exactly those roads, made by the same search's customize() (cells are its
   * overlay's), so it crosses them instead of walking their roads. A cell two lists touch is walked,
   * unless sharedCellCliques has it.
   */
  blockedCellCliques?: readonly (BlockedCellCliques | undefined)[];
  /**
   * With blockedCellCliques: cells two or more of its lists touch, each with cliques that avoid the
   * roads of exactly the lists touching it (customizeCells on their union), so those are crossed too.
   */
  sharedCellCliques?: readonly BlockedCellCliques[];
  /**
   * With blockedCellCliques: big cells, each with cliques that avoid the roads of exactly the lists
   * whose customized small cells lie in it (customizeBigCells), so a big cell no endpoint and no
   * list without cliques opens is crossed whole (the sources' own big cell excepted).
   */
  bigCellCliques?: readonly BlockedCellCliques[];
  /** Roads that may be used at an extra cost per metre driven on them (soft avoidance). */
  penalty?: Penalty;
  /**
   * With a penalty: sets of small cells with cliques that charge it (each set's `costPerMetre` on
   * the penalised roads inside its cells, which the penalty must charge the same: a vehicle class's
   * destination-only roads, a SOFT zone's roads), crossed by those unless something else opens them
   * or two sets hold the cell (then walked); Penalty.roadLists need not hold the roads inside them.
   */
  penalisedCellCliques?: readonly (PenalisedCellCliques | undefined)[];
  /**
   * Per road, the travel time in whole milliseconds when it is not the graph's (a vehicle's speeds:
   * never below the graph's, so the graph's hierarchy, cliques and landmarks stay lower bounds).
   * Only a search that knows where such times differ may use the graph's own cliques or free
   * paths: with the duration metric the cells of `retimedRoads` open, except those crossed by
   * blockedCellCliques (which the caller made with these times), and a free path is taken only
   * where it drives none of them.
   */
  roadMillis?: Uint32Array;
  /** With roadMillis: the roads whose time differs from the graph's (ascending). */
  retimedRoads?: ArrayLike<number>;
  /**
   * Roads closed at some times (scheduled zones), for the duration metric without a penalty:
   * costs are then seconds since the departure, and a road waits until it may be driven.
   */
  schedule?: RoadSchedule;
}

/**
 * The small cells of a cell overlay that a set of blocked roads touches (a zone's), with their
 * cliques recomputed without those roads: CRP's customization, per zone instead of per metric.
 */
export type BlockedCellCliques = CellCliques;

/**
 * Soft avoidance: each metre on road r adds costPerMetre[roads[r]] to the path cost. roads[r] is
 * the road's penalty class (0: none; the router uses 1 for zones, 2 for avoided types, 3 for both).
 */
export interface Penalty {
  roads: Uint8Array;
  costPerMetre: Float64Array;
  /**
   * Set when a search that closed the penalised roads found no path: the targets are reached only
   * through them, so what surrounds the targets without a penalty is enclosed, and a search's
   * lower bound of the penalty (PenaltyBound) is worth walking it to the end.
   */
  unavoidable?: boolean;
  /** When known, lists whose union holds every road with a penalty (as blockedRoadLists for blocked roads). */
  roadLists?: readonly ArrayLike<number>[];
}

/**
 * Cost added per metre on a zone's roads when a stop can only be served through a zone: large
 * enough that any metre saved inside zones outweighs any difference in time or distance outside.
 */
export const ZONE_COST_PER_METRE = 1e6;

/** A penalty of `costPerMetre` on every road whose mask entry is 1. */
export function uniformPenalty(roads: Uint8Array, costPerMetre: number): Penalty {
  return { roads, costPerMetre: Float64Array.of(0, costPerMetre) };
}

/** The cheapest path found: which endpoints, and the directed edges between their nodes. */
export interface PathResult {
  cost: number;
  source: number;
  target: number;
  edges: number[];
}

/** A shortest-path engine over a RoadGraph. Returns null when no target can be reached. */
export interface PathSearch {
  readonly name: string;
  find(query: PathQuery): PathResult | null;
  /** Nodes (and cells' boundary nodes) the last find() settled. */
  readonly settledCount?: number;
  /**
   * The cells `roads` touch with cliques around them, for PathQuery.blockedCellCliques (`blocked`:
   * a mask marking those roads); undefined for an engine without small cells, when the roads
   * touch more than `maxCells` of them, or a cell whose clique would cross it no faster than
   * walking it (OverlaySearch's MAX_CUSTOMIZED_ENTRIES, unless `maxEntries` says otherwise).
   */
  customize?(roads: ArrayLike<number>, blocked: Uint8Array, maxCells: number, maxEntries?: number): BlockedCellCliques | undefined;
  /** The given small cells with cliques around the roads `blocked` marks (PathQuery.sharedCellCliques; durations in `millis` when given). */
  customizeCells?(cells: Uint32Array, blocked: Uint8Array, millis?: Uint32Array): BlockedCellCliques | undefined;
  /** The small cells `roads` touch, ascending, as customize() takes them (no bound on their count or entries); undefined without small cells. */
  cellsOf?(roads: ArrayLike<number>): Uint32Array | undefined;
  /** The big cell a small cell of customize() lies in; undefined without two levels. */
  bigCellOf?(smallCell: number): number | undefined;
  /**
   * The given big cells with cliques around the roads `blocked` marks (PathQuery.bigCellCliques),
   * built on the small cells' cliques: `lists`, customize()'s for those roads, and `shared`, their
   * shared cells' (customizeCells); undefined where not worth it.
   */
  customizeBigCells?(cells: Uint32Array, blocked: Uint8Array, lists: readonly BlockedCellCliques[], shared: readonly BlockedCellCliques[], millis?: Uint32Array, maxEntries?: number): BlockedCellCliques | undefined;
  /** customize() for PathQuery.penalisedCellCliques: the cells `roads` touch, charging `costPerMetre` on the roads `penalised` marks. */
  penalise?(roads: ArrayLike<number>, blocked: Uint8Array | undefined, penalised: Uint8Array, costPerMetre: number, maxCells: number): PenalisedCellCliques | undefined;
  /** The given small cells with cliques charging `costPerMetre` on the roads `penalised` marks, around those `blocked` marks (PathQuery.penalisedCellCliques). */
  penaliseCells?(cells: Uint32Array, blocked: Uint8Array, penalised: Uint8Array, costPerMetre: number, millis?: Uint32Array): PenalisedCellCliques | undefined;
}

/** Cliques of disjoint, ascending runs of cells (customizeCells' or penaliseCells' answers, in cell order) as one; undefined for none. */
export function joinCellCliques<C extends BlockedCellCliques | PenalisedCellCliques>(parts: readonly C[]): C | undefined {
  if (parts.length === 0) return undefined;
  let cells = 0, entries = 0;
  for (const p of parts) { cells += p.cells.length; entries += p.duration.length; }
  const values = () => (parts[0].duration instanceof Float64Array ? new Float64Array(entries) : new Uint32Array(entries));
  const out = { ...parts[0], cells: new Uint32Array(cells), first: new Float64Array(cells + 1), duration: values(), distance: values() } as C;
  let c = 0, e = 0;
  for (const p of parts) {
    out.cells.set(p.cells, c);
    for (let j = 0; j < p.cells.length; j++) out.first[c + j + 1] = e + p.first[j + 1];
    out.duration.set(p.duration, e);
    out.distance.set(p.distance, e);
    c += p.cells.length;
    e += p.duration.length;
  }
  return out;
}

/** Whether every edge's road takes the graph's own time under `millis` (no retimed road: see PathQuery.roadMillis). */
export function timedAsGraph(graph: { edgeRoad: Uint32Array; roadMillis: Uint32Array }, edges: readonly number[], millis: Uint32Array | undefined): boolean {
  if (millis === undefined || millis === graph.roadMillis) return true;
  const { edgeRoad, roadMillis } = graph;
  for (let i = 0; i < edges.length; i++) if (millis[edgeRoad[edges[i]]] !== roadMillis[edgeRoad[edges[i]]]) return false;
  return true;
}

/** Whether none of the edges lies on a road marked in `blocked`. */
export function drivesNone(edgeRoad: Uint32Array, edges: readonly number[], blocked: Uint8Array): boolean {
  for (let i = 0; i < edges.length; i++) if (blocked[edgeRoad[edges[i]]] !== 0) return false;
  return true;
}

export function noHierarchy(): DetourError {
  return new DetourError(
    ErrorCode.INVALID_INPUT,
    'the graph has no contraction hierarchy: re-import it with detour import (or call buildHierarchy), or use the astar engine',
  );
}
