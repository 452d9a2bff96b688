import type { RoadGraph } from '../graph/RoadGraph.js';
import type { CellOverlay } from '../hierarchy/CellOverlay.js';
import { CHPotentialSearch, drivesNone, noHierarchy } from './CHPotentialSearch.js';
import { CHQuery } from './CHQuery.js';
import { NodeRecords } from './NodeRecords.js';
import { OverlaySearch } from './OverlaySearch.js';
import type { BlockedCellCliques, PathQuery, PathResult, PathSearch } from './PathSearch.js';
import { shortcutPathBytes, shortcutPathsPerMetric } from './ShortcutPaths.js';

/**
 * The hierarchy engine: the CH query for routes with nothing penalised whose cheapest path drives
 * no blocked road (that path is then also the cheapest around them: blocking only removes paths),
 * otherwise the overlay search (OverlaySearch) when the graph has a cell overlay, else the
 * CH-potential A*. All exact; `settledCount` is the last query's expanded nodes.
 */
export class HierarchySearch implements PathSearch {
  readonly name = 'ch';
  readonly free: CHQuery;
  readonly constrained: CHPotentialSearch | OverlaySearch;
  settledCount = 0;

  /**
   * With a cell overlay (the graph's, from its file, unless given), routes around blocked roads
   * cross the cells they leave alone by their cliques (OverlaySearch); without one, or with
   * `overlay: null`, the CH-potential A* on the roads. `keptShortcutBytes`: per metric, the most
   * bytes of unpacked shortcuts kept for later routes (ShortcutPaths; 0 keeps none).
   */
  constructor(
    private readonly graph: RoadGraph, overlay: CellOverlay | null | undefined = graph.hierarchy?.overlay,
    keptShortcutBytes = shortcutPathBytes(graph.edgeCount),
  ) {
    const h = graph.hierarchy;
    if (!h) throw noHierarchy();
    // The two never run at once: the A* and its potential reuse the free query's two sides.
    const sides = [new NodeRecords(graph.nodeCount), new NodeRecords(graph.nodeCount)] as const;
    // The overlay's own free query (it unpacks stretches of cliques) keeps its shortcuts in the same place.
    const paths = shortcutPathsPerMetric(h, keptShortcutBytes);
    this.free = new CHQuery(graph, h, sides, paths);
    this.constrained = overlay ? new OverlaySearch(graph, overlay, sides, paths) : new CHPotentialSearch(graph, sides);
  }

  /**
   * Bytes of the search state: two NodeRecords the free query and the A* share, grown by the
   * largest search so far, and the unpacked shortcuts kept (ShortcutPaths).
   */
  get stateBytes(): number {
    return this.constrained.stateBytes + this.free.paths.distance.byteSize + this.free.paths.duration.byteSize;
  }

  /** See PathSearch.customize: the overlay's, when it has small cells. */
  customize(roads: ArrayLike<number>, blocked: Uint8Array, maxCells: number): BlockedCellCliques | undefined {
    return this.constrained instanceof OverlaySearch ? this.constrained.customize(roads, blocked, maxCells) : undefined;
  }

  /** See PathSearch.customizeCells. */
  customizeCells(cells: Uint32Array, blocked: Uint8Array): BlockedCellCliques | undefined {
    return this.constrained instanceof OverlaySearch ? this.constrained.customizeCells(cells, blocked) : undefined;
  }

  /** See PathSearch.customizeWork. */
  customizeWork(roads: ArrayLike<number>, maxCells: number): number | undefined {
    return this.constrained instanceof OverlaySearch ? this.constrained.customizeWork(roads, maxCells) : undefined;
  }

  /** See PathSearch.cellsWork. */
  cellsWork(cells: ArrayLike<number>): number {
    return this.constrained instanceof OverlaySearch ? this.constrained.cellsWork(cells) : 0;
  }

  /** See PathSearch.bigCellsWork. */
  bigCellsWork(cells: ArrayLike<number>): number {
    return this.constrained instanceof OverlaySearch ? this.constrained.bigCellsWork(cells) : 0;
  }

  /** See PathSearch.bigCellOf. */
  bigCellOf(smallCell: number): number | undefined {
    return this.constrained instanceof OverlaySearch ? this.constrained.bigCellOf(smallCell) : undefined;
  }

  /** See PathSearch.customizeBigCells. */
  customizeBigCells(cells: Uint32Array, blocked: Uint8Array, lists: readonly BlockedCellCliques[], shared: readonly BlockedCellCliques[]): BlockedCellCliques | undefined {
    return this.constrained instanceof OverlaySearch ? this.constrained.customizeBigCells(cells, blocked, lists, shared) : undefined;
  }

  find(query: PathQuery): PathResult | null {
    let settled = 0;
    const blocked = query.blockedRoads;
    if (query.penalty === undefined) {
      // Most routes miss most zones: a free query (about a millisecond on a country) settles it.
      const found = this.free.find(query.sources, query.targets, query.metric);
      settled = this.free.settledCount;
      if (blocked === undefined || found === null || drivesNone(this.graph.edgeRoad, found.edges, blocked)) {
        this.settledCount = settled;
        return found;
      }
    }
    const found = this.constrained.find(query);
    this.settledCount = settled + this.constrained.settledCount;
    return found;
  }
}
