import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import type { CellOverlay, PenalisedCellCliques } from '../hierarchy/CellOverlay.js';
import { DetourError, ErrorCode } from '../errors.js';
import { CHQuery } from './CHQuery.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import { OverlaySearch } from './OverlaySearch.js';
import { drivesNone, noHierarchy, timedAsGraph, type BlockedCellCliques, type Penalty, type PathQuery, type PathResult, type PathSearch } from './PathSearch.js';
import { waitsNone } from './RoadSchedule.js';
import { shortcutPathBytes, shortcutPathsPerMetric } from './ShortcutPaths.js';

/**
 * The hierarchy engine: the CH query for routes whose cheapest path drives no blocked road and no
 * penalised one (that path is then also the cheapest around them: blocking only removes paths, a
 * penalty only adds), otherwise the overlay search (OverlaySearch). Both exact; `settledCount` is the last query's
 * expanded nodes.
 */
export class HierarchySearch implements PathSearch {
  readonly name = 'ch';
  readonly free: CHQuery;
  readonly constrained: OverlaySearch;
  settledCount = 0;

  /**
   * `overlay`: the cell overlay routes around blocked roads cross (the graph's, from its file,
   * unless given). `keptShortcutBytes`: per metric, the most bytes of unpacked shortcuts kept for
   * later routes (ShortcutPaths; 0 keeps none).
   */
  /** The free query's and the A*'s node records (two sides), which a lender's borrower shares (and EnclosureSearch's sides before its query). */
  readonly sides: readonly [NodeRecords, NodeRecords];

  /**
   * `lender`: a search over the same nodes that never runs at the same time as this one (another
   * hierarchy of the same graph on the same thread): its node records are shared, and its kept
   * shortcuts of any hierarchy the two share.
   */
  constructor(
    private readonly graph: HierarchyGraph, overlay: CellOverlay | undefined = graph.hierarchy?.overlay,
    keptShortcutBytes = shortcutPathBytes(graph.edgeCount), lender?: HierarchySearch,
  ) {
    const h = graph.hierarchy;
    if (!h) throw noHierarchy();
    if (!overlay) {
      throw new DetourError(ErrorCode.INVALID_INPUT, 'the graph has no cell overlay (a file written before it): re-import it with detour import (or call buildHierarchy)');
    }
    // The two never run at once: the A* and its potential reuse the free query's two sides.
    const sides = lender?.sides ?? [new NodeRecords(graph.nodeCount), new NodeRecords(graph.nodeCount)] as const;
    this.sides = sides;
    // The overlay's own free query (it unpacks stretches of cliques) keeps its shortcuts in the same place.
    const paths = shortcutPathsPerMetric(h, keptShortcutBytes);
    const lent = lender?.free.paths;
    if (lent?.distance.ch === h.distance) paths.distance = lent.distance;
    if (lent?.duration.ch === h.duration) paths.duration = lent.duration;
    this.free = new CHQuery(graph, h, sides, paths);
    this.constrained = new OverlaySearch(graph, overlay, sides, paths);
  }

  /**
   * Bytes of the search state: two NodeRecords the free query and the A* share, grown by the
   * largest search so far, and the unpacked shortcuts kept (ShortcutPaths).
   */
  get stateBytes(): number {
    return this.constrained.stateBytes + this.free.paths.distance.byteSize + this.free.paths.duration.byteSize;
  }

  /** See PathSearch.customize: the overlay's, when it has small cells. */
  customize(roads: ArrayLike<number>, blocked: Uint8Array, maxCells: number, maxEntries?: number): BlockedCellCliques | undefined {
    return this.constrained.customize(roads, blocked, maxCells, maxEntries);
  }

  /** See PathSearch.customizeCells. */
  customizeCells(cells: Uint32Array, blocked: Uint8Array, millis?: Uint32Array): BlockedCellCliques | undefined {
    return this.constrained.customizeCells(cells, blocked, millis);
  }

  /** See PathSearch.cellsOf. */
  cellsOf(roads: ArrayLike<number>): Uint32Array | undefined {
    return this.constrained.cellsOf(roads);
  }

  /** See PathSearch.bigCellOf. */
  bigCellOf(smallCell: number): number | undefined {
    return this.constrained.bigCellOf(smallCell);
  }

  /** See PathSearch.customizeBigCells. */
  customizeBigCells(cells: Uint32Array, blocked: Uint8Array, lists: readonly BlockedCellCliques[], shared: readonly BlockedCellCliques[], millis?: Uint32Array, maxEntries?: number): BlockedCellCliques | undefined {
    return this.constrained.customizeBigCells(cells, blocked, lists, shared, millis, maxEntries);
  }

  /** See PathSearch.penalise. */
  penalise(roads: ArrayLike<number>, blocked: Uint8Array | undefined, penalised: Uint8Array, costPerMetre: number, maxCells: number): PenalisedCellCliques | undefined {
    return this.constrained.penalise(roads, blocked, penalised, costPerMetre, maxCells);
  }

  /** See PathSearch.penaliseCells. */
  penaliseCells(cells: Uint32Array, blocked: Uint8Array, penalised: Uint8Array, costPerMetre: number, millis?: Uint32Array): PenalisedCellCliques | undefined {
    return this.constrained.penaliseCells(cells, blocked, penalised, costPerMetre, millis);
  }

  find(query: PathQuery): PathResult | null {
    let settled = 0;
    const blocked = query.blockedRoads, penalty = query.penalty;
    if (penalty === undefined || !penalty.unavoidable) {
      // Most routes miss most zones: a free query (about a millisecond on a country) settles it.
      // A penalty only adds (its endpoints' share is in their costs): a free path that pays none is the cheapest too.
      const found = this.free.find(query.sources, query.targets, query.metric);
      settled = this.free.settledCount;
      // A schedule only delays: a free path that waits nowhere arrives first. Slower road times
      // only add: a free path that drives none of them takes the graph's time, the least of all.
      const schedule = query.schedule, millis = query.metric === 'duration' ? query.roadMillis : undefined;
      if (found === null || ((blocked === undefined || drivesNone(this.graph.edgeRoad, found.edges, blocked))
        && (penalty === undefined || paysNone(this.graph.edgeRoad, found.edges, penalty))
        && timedAsGraph(this.graph, found.edges, millis)
        && (schedule === undefined || waitsNone(this.graph, found.edges, query.sources[found.source].cost, schedule)))) {
        this.settledCount = settled;
        return found;
      }
    }
    const found = this.constrained.find(query);
    this.settledCount = settled + this.constrained.settledCount;
    return found;
  }
}

/** Whether none of the edges lies on a road the penalty charges. */
function paysNone(edgeRoad: Uint32Array, edges: readonly number[], penalty: Penalty): boolean {
  const { roads, costPerMetre } = penalty;
  for (let i = 0; i < edges.length; i++) if (costPerMetre[roads[edgeRoad[edges[i]]]] !== 0) return false;
  return true;
}
