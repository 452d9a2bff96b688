import { DetourError, ErrorCode } from '../errors.js';
import { COST_STEP, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import {
  cliqueValue, levelView, slotIn, smallCellRanges, UNREACHABLE, writeCellClique, writePenalisedCellClique, type CellOverlay, type CliquePenalty, type OverlayLevel,
  type PenalisedCellCliques,
} from '../hierarchy/CellOverlay.js';
import { CHPotential } from './CHPotential.js';
import { CHQuery } from './CHQuery.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import { drivesNone, timedAsGraph, type BlockedCellCliques, type PathQuery, type PathResult, type PathSearch, type Penalty } from './PathSearch.js';
import { PenaltyBound } from './PenaltyBound.js';
import type { ShortcutPaths } from './ShortcutPaths.js';

/**
 * Most entries of a big cell that customizeBigCells recomputes: a Dijkstra per entry over its
 * small cells' boundaries, and a clique of entries x exits kept per zone set, so a cell with many
 * (where a dense road network is cut into big cells mid-town) is left to be crossed small cell by
 * small cell. The synthetic country's big cells (its tiles, joined by a few motorways) have 4 on
 * average, Gothenburg's of 1,024 nodes 16.
 */
export const MAX_CUSTOMIZED_BIG_ENTRIES = 32;

/**
 * Most entries of a small cell customize() gives cliques. Customizing costs a Dijkstra per entry
 * over the cell, and a clique of entries x exits crosses the cell no faster than walking it once
 * that many pairs outnumber its roads (64 x 64 against some 4,700 directed roads in a cell of
 * 2,048 nodes). Cells of real road networks stay below (the 5M synthetic country's have 18 entries
 * at the median and 60 at most, Gothenburg's 47); a uniform grid's have 76-177: customizing a zone's
 * cells there cost ~115 ms per zone at 1M nodes and saved its routes about 5 %, so a zone touching
 * such a cell is walked, as without customization.
 */
export const MAX_CUSTOMIZED_ENTRIES = 64;

/** One level of the overlay as the search reads it. */
interface Level extends OverlayLevel {
  /** Per cell: the query stamp when it is open. */
  openStamp: Uint32Array;
}

function levelOf(o: CellOverlay): Level {
  return { ...levelView(o), openStamp: new Uint32Array(o.entryFirst.length - 1) };
}

/**
 * A* over the cell overlay (CellOverlay) with the CH potential: inside an open cell (one holding a
 * source, a target or an end of a blocked road) the search walks the roads; any other cell is
 * crossed from the entry a link arrived at to its exits by its clique (the costs through the
 * cell, which nothing blocks), and left by links. With small cells inside the big ones, a closed
 * big cell is crossed by its clique, and inside an open big cell each closed small cell by its
 * own; roads are walked only in the open small cells (CRP's levels). Exact: every path through a
 * closed cell from an entry to an exit costs at least its clique entry, and the potential (the
 * unblocked cost to the targets) stays a lower bound. The sources' small cell, when nothing else
 * opens it, is left from the sources to its exits by a Dijkstra inside it (sourceRow), as CRP's
 * query does, rather than walked by the A*; and their big cell, when nothing else opens it, by a
 * Dijkstra over its small cells' cliques from there (bigRow). The path unpacks in runs: where it follows a free
 * cheapest path (its cost grows by what the potential falls), as one free CH query per run; in
 * between, stretches of cliques as free CH paths of the same cost that drive no blocked road,
 * else by halves, a lone clique by a Dijkstra in its cell.
 * Knowing where the blocked roads are costs O(blocked roads) with PathQuery.blockedRoadLists, a
 * pass over the mask without. With a penalty (stops inside zones, SOFT zones, a vehicle's
 * destination-only roads) the cells of the penalised roads open too (Penalty.roadLists, else a
 * pass over its mask), roads there cost their penalty as well, and the potential adds the penalty
 * still to pay (PenaltyBound): a closed cell has no penalised road, so its clique is its cost with
 * the penalty too; cells given penalised cliques (PathQuery.penalisedCellCliques) are crossed by
 * those, in big cells that open, and their hops unpack by a Dijkstra that charges the same.
 */
export class OverlaySearch implements PathSearch {
  readonly name = 'overlay';
  private readonly records: NodeRecords;
  private pushedPi: Float64Array = new Float64Array(4096);
  private readonly toTargets: CHPotential;
  private readonly heap = new MinHeap(4096);
  /** The big cells, and the small cells inside them when the overlay has them. */
  private readonly coarse: Level;
  private readonly fine?: Level;
  /** Per node: its small cell when the overlay has them, else its cell. */
  private readonly nodeCell: Uint16Array | Uint32Array;
  /** With small cells: per small cell, its big cell, and per big cell the row of its small cells (smallCellRanges). */
  private readonly bigOf?: Uint16Array | Uint32Array;
  private readonly smallFirst?: Uint32Array;
  /** Per small cell: the query stamp when a list's customized clique crosses it, that list and the cell's place in it. */
  private readonly customStamp?: Uint32Array;
  private readonly customList?: Uint32Array;
  private readonly customSlot?: Uint32Array;
  /** Per big cell: the query stamp when PathQuery.bigCellCliques crosses it, that entry and the cell's place in it. */
  private readonly bigCustomStamp?: Uint32Array;
  private readonly bigCustomList?: Uint32Array;
  private readonly bigCustomSlot?: Uint32Array;
  /** The last query's customized cliques (small cells' per list, then shared; big cells'), read again to unpack. */
  private custom?: readonly (BlockedCellCliques | undefined)[];
  /** Scratch of unpackBig: per hop inside the big cell, its tail, head, link (an edge, or -2 - tail for a clique) and cost in steps. */
  private readonly hops: number[] = [];
  private stamp = 0;
  /** The free CH query that unpacks stretches of cliques (on the same records: it runs after the search). */
  private readonly free: CHQuery;
  /** The sources' cell's exits (sourceRow, bigRow): the exit, its cost and the source it came from. */
  private rowNode = new Int32Array(64);
  private rowCost = new Float64Array(64);
  private rowRoot = new Int32Array(64);
  /** The found path, target first: node, link, cost and potential per node. */
  private readonly path: number[] = [];
  /** The road times of the last query (PathQuery.roadMillis, else the graph's), read again to unpack. */
  private millis: Uint32Array;
  /** With a penalty: the penalty still to pay (made at the first such query). */
  private penaltyLeft?: PenaltyBound;
  /** Per small cell: the query stamp when PathQuery.penalisedCellCliques crosses it, the set that does and the cell's place there. */
  private readonly penalisedStamp?: Uint32Array;
  private readonly penalisedList?: Uint32Array;
  private readonly penalisedSlot?: Uint32Array;
  /** With penalised cliques: the last query's penalty, which unpacking their hops charges as they did. */
  private unpackPenalty?: Penalty;
  /** Entries the last query's A* expanded (road nodes and boundary nodes). */
  settledCount = 0;
  /** Cells the last query opened. */
  openCount = 0;

  /**
   * `records`: the search's and the potential's node records, lent by searches that never run at
   * the same time (NodeRecords); `paths`: the unpacked shortcuts the lender's free query keeps.
   */
  constructor(
    private readonly graph: HierarchyGraph, overlay: CellOverlay, records?: readonly [search: NodeRecords, potential: NodeRecords],
    paths?: Record<Metric, ShortcutPaths>,
  ) {
    if (!graph.hierarchy) throw new DetourError(ErrorCode.INVALID_INPUT, 'the overlay search needs the contraction hierarchy for its potential');
    const n = graph.nodeCount;
    const [search, potential] = records ?? [new NodeRecords(n), new NodeRecords(n)];
    this.records = search;
    this.millis = graph.roadMillis;
    this.toTargets = new CHPotential(n, potential);
    this.free = new CHQuery(graph, graph.hierarchy, [search, potential], paths);
    this.coarse = levelOf(overlay);
    this.nodeCell = overlay.cellOf;
    if (overlay.fine) {
      this.fine = levelOf(overlay.fine);
      this.nodeCell = overlay.fine.cellOf;
      this.bigOf = overlay.cellOf;
      const ranges = smallCellRanges(overlay.cellOf, overlay.entryFirst.length - 1);
      if (typeof ranges === 'string') throw new DetourError(ErrorCode.INVALID_INPUT, `the cell overlay's ${ranges}`);
      this.smallFirst = ranges;
      const smallCells = overlay.fine.entryFirst.length - 1;
      this.customStamp = new Uint32Array(smallCells);
      this.customList = new Uint32Array(smallCells);
      this.customSlot = new Uint32Array(smallCells);
      this.penalisedStamp = new Uint32Array(smallCells);
      this.penalisedList = new Uint32Array(smallCells);
      this.penalisedSlot = new Uint32Array(smallCells);
      const bigCells = overlay.entryFirst.length - 1;
      this.bigCustomStamp = new Uint32Array(bigCells);
      this.bigCustomList = new Uint32Array(bigCells);
      this.bigCustomSlot = new Uint32Array(bigCells);
    }
  }

  /**
   * The small cells `roads` touch (the cells of their ends), with both metrics' cliques without
   * the roads `blocked` marks (those roads): a Dijkstra per entry inside each cell, on the
   * potential's records; undefined without small cells, past `maxCells` of them, or when one has
   * more than `maxEntries` entries (MAX_CUSTOMIZED_ENTRIES). Paid once per zone (about 9 ms for a
   * 1-5 km zone's 2-3 cells at 5M nodes), it lets every later route around the zone cross those
   * cells by clique.
   */
  customize(roads: ArrayLike<number>, blocked: Uint8Array, maxCells = Infinity, maxEntries = MAX_CUSTOMIZED_ENTRIES): BlockedCellCliques | undefined {
    const cells = this.zoneCells(roads, maxCells, maxEntries);
    return cells && this.customizeCells(cells, blocked);
  }

  /**
   * The small cells `roads` touch with cliques charging `costPerMetre` on the roads `penalised`
   * marks (penaliseCells), undefined as for customize(): a SOFT zone's cells.
   */
  penalise(roads: ArrayLike<number>, blocked: Uint8Array | undefined, penalised: Uint8Array, costPerMetre: number, maxCells = Infinity, maxEntries = MAX_CUSTOMIZED_ENTRIES): PenalisedCellCliques | undefined {
    const cells = this.zoneCells(roads, maxCells, maxEntries);
    return cells && this.penaliseCells(cells, blocked, penalised, costPerMetre);
  }

  /** The small cells `roads` touch, ascending (PathSearch.cellsOf); undefined without small cells. */
  cellsOf(roads: ArrayLike<number>): Uint32Array | undefined {
    return this.zoneCells(roads, Infinity, Infinity)?.sort();
  }

  /** The small cells `roads` touch; undefined without small cells, past `maxCells` of them or past `maxEntries` entries in one. */
  private zoneCells(roads: ArrayLike<number>, maxCells: number, maxEntries: number): Uint32Array | undefined {
    const fine = this.fine;
    if (fine === undefined) return undefined;
    const { roadFrom, roadTo } = this.graph, nodeCell = this.nodeCell, entryFirst = fine.entryFirst;
    const touched = new Set<number>();
    const touch = (v: number): boolean => {
      const c = nodeCell[v];
      if (touched.has(c)) return true;
      touched.add(c);
      return touched.size <= maxCells && entryFirst[c + 1] - entryFirst[c] <= maxEntries;
    };
    for (let k = 0; k < roads.length; k++) {
      for (let v = roadFrom[roads[k]], end = junctionEnd(this.graph, v); v < end; v++) if (!touch(v)) return undefined;
      for (let v = roadTo[roads[k]], end = junctionEnd(this.graph, v); v < end; v++) if (!touch(v)) return undefined;
    }
    return Uint32Array.from(touched);
  }

  /**
   * The given small cells (sorted in place) with both metrics' cliques without the roads `blocked`
   * marks (durations in `millis`, else the graph's road times); undefined without small cells.
   * Also how a cell two zones touch gets cliques without both (PathQuery.sharedCellCliques).
   */
  customizeCells(cells: Uint32Array, blocked: Uint8Array, millis?: Uint32Array): BlockedCellCliques | undefined {
    const fine = this.fine;
    if (fine === undefined) return undefined;
    const g = this.graph;
    const out = cliqueArrays(fine, cells);
    for (const metric of ['duration', 'distance'] as const) {
      const steps = metric === 'duration' && millis ? millis : g.roadCost(metric);
      for (let j = 0; j < cells.length; j++) writeCellClique(g, fine, this.nodeCell, cells[j], steps, metric, out[metric], out.first[j], this.toTargets.records, this.heap, blocked);
    }
    return out;
  }

  /**
   * The given small cells (sorted in place) with both metrics' cliques charging `costPerMetre` on
   * the roads `penalised` marks and without those `blocked` marks (durations in `millis`, else the
   * graph's): PathQuery.penalisedCellCliques. Undefined without small cells.
   */
  penaliseCells(cells: Uint32Array, blocked: Uint8Array | undefined, penalised: Uint8Array, costPerMetre: number, millis?: Uint32Array): PenalisedCellCliques | undefined {
    const fine = this.fine;
    if (fine === undefined) return undefined;
    const g = this.graph;
    const { first } = cliqueArrays(fine, cells);
    const out: PenalisedCellCliques = { cells, first, duration: new Float64Array(first[cells.length]), distance: new Float64Array(first[cells.length]), costPerMetre };
    for (const metric of ['duration', 'distance'] as const) {
      const steps = metric === 'duration' && millis ? millis : g.roadCost(metric);
      const penalty: CliquePenalty = { roads: penalised, stepsPerCm: costPerMetre * COST_STEP.distance / COST_STEP[metric] };
      for (let j = 0; j < cells.length; j++) writePenalisedCellClique(g, fine, this.nodeCell, cells[j], steps, metric, out[metric], first[j], this.toTargets.records, this.heap, blocked, penalty);
    }
    return out;
  }

  /** The big cell of a small cell (PathSearch.bigCellOf); undefined without small cells. */
  bigCellOf(smallCell: number): number | undefined {
    return this.bigOf?.[smallCell];
  }

  /**
   * The given big cells (sorted in place) with both metrics' cliques without the roads `blocked`
   * marks (PathQuery.bigCellCliques), bottom-up: a Dijkstra per entry over each cell's small cells
   * (overSmallCells), crossed by the cliques of `lists` (customize()'s around those roads) and
   * `shared` (customizeCells' for cells two lists touch), walked where two lists meet without one,
   * by the overlay's own elsewhere. Undefined without small cells, or when a cell has more than
   * `maxEntries` entries (default MAX_CUSTOMIZED_BIG_ENTRIES).
   */
  customizeBigCells(
    cells: Uint32Array, blocked: Uint8Array, lists: readonly BlockedCellCliques[] = [], shared: readonly BlockedCellCliques[] = [], millis?: Uint32Array,
    maxEntries = MAX_CUSTOMIZED_BIG_ENTRIES,
  ): BlockedCellCliques | undefined {
    const fine = this.fine;
    if (fine === undefined) return undefined;
    const coarse = this.coarse;
    for (const c of cells) if (coarse.entryFirst[c + 1] - coarse.entryFirst[c] > maxEntries) return undefined;
    const g = this.graph;
    const out = cliqueArrays(coarse, cells), first = out.first;
    // The small cells as a query with these lists would see them: crossed by the lists' cliques, walked where two lists meet without shared ones.
    this.nextStamp();
    this.markLists(lists, shared);
    for (const metric of ['duration', 'distance'] as const) {
      const steps = metric === 'duration' && millis ? millis : g.roadCost(metric);
      for (let j = 0; j < cells.length; j++) {
        const c = cells[j], e0 = coarse.entryFirst[c], E = coarse.entryFirst[c + 1] - e0;
        const lo = this.smallFirst![c], span = this.smallFirst![c + 1] - lo;
        const x0 = coarse.exitFirst[c], X = coarse.exitFirst[c + 1] - x0;
        for (let i = 0; i < E; i++) {
          const rec = this.overSmallCells(lo, span, coarse.entryNode[e0 + i], -1, steps, metric, blocked, false);
          const row = first[j] + i * X;
          for (let k = 0; k < X; k++) out[metric][row + k] = cliqueValue(rec, coarse.exitNode[x0 + k], metric);
        }
      }
    }
    this.custom = undefined;
    return out;
  }

  /** A new query stamp: every cell's marks of the last query are forgotten. */
  private nextStamp(): number {
    if (++this.stamp === 0xffffffff) {
      this.coarse.openStamp.fill(0); this.fine?.openStamp.fill(0); this.customStamp?.fill(0); this.bigCustomStamp?.fill(0); this.penalisedStamp?.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  /**
   * Marks the small cells the lists' customized cliques cross (customStamp, customList, customSlot:
   * list l's cells by list l) at the current stamp; a cell two lists touch is walked (fineStamp),
   * unless a shared entry has it (its cliques around all their roads: list lists.length + k).
   * Keeps the lists, then the shared ones, as `custom`.
   */
  private markLists(lists: readonly (BlockedCellCliques | undefined)[], shared: readonly BlockedCellCliques[]): void {
    const customStamp = this.customStamp!, customList = this.customList!, customSlot = this.customSlot!;
    const fineStamp = this.fine!.openStamp, stamp = this.stamp;
    for (let l = 0; l < lists.length; l++) {
      const cells = lists[l]?.cells;
      if (cells === undefined) continue;
      for (let j = 0; j < cells.length; j++) {
        const f = cells[j];
        if (fineStamp[f] === stamp) continue;
        if (customStamp[f] === stamp) { fineStamp[f] = stamp; continue; } // a second list: walked
        customStamp[f] = stamp; customList[f] = l; customSlot[f] = j;
      }
    }
    // A cell open here and customized is one only a second list opened.
    for (let k = 0; k < shared.length; k++) {
      const cells = shared[k].cells;
      for (let j = 0; j < cells.length; j++) {
        const f = cells[j];
        if (customStamp[f] !== stamp || fineStamp[f] !== stamp) continue;
        fineStamp[f] = 0;
        customList[f] = lists.length + k; customSlot[f] = j;
      }
    }
    this.custom = shared.length > 0 ? [...lists, ...shared] : lists;
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad, roadFrom, roadTo, roadLengthCm } = g;
    // Per road: centimetres or milliseconds, each array read at its own site (a site reading arrays
    // of two element kinds goes polymorphic and slows the search).
    const millis = query.roadMillis ?? g.roadMillis, byTime = query.metric === 'duration';
    this.millis = millis;
    const coarse = this.coarse, fine = this.fine;
    const { nodeCell, bigOf, smallFirst } = this;
    const openStamp = coarse.openStamp, fineStamp = fine?.openStamp;
    const metric = query.metric;
    const step = COST_STEP[metric];
    const blocked = query.blockedRoads;
    const penalty = query.penalty;
    const penalised = penalty?.roads, perMetre = penalty?.costPerMetre;
    const schedule = query.schedule, timed = schedule?.roads;
    const { records, heap, toTargets } = this;
    const targets = query.targets;
    const T = targets.length;

    // Open the cells (of both levels) of the endpoints and of every blocked or penalised road.
    const stamp = this.nextStamp();
    let opened = 0;
    const open = (v: number) => {
      const f = nodeCell[v], c = bigOf !== undefined ? bigOf[f] : f;
      if (openStamp[c] !== stamp) { openStamp[c] = stamp; opened++; }
      if (fineStamp !== undefined) fineStamp[f] = stamp;
    };
    // A road's edges may end at copies of its end junctions (turn restrictions): their cells open too.
    const openRoad = (r: number) => {
      for (let v = roadFrom[r], end = junctionEnd(this.graph, v); v < end; v++) open(v);
      for (let v = roadTo[r], end = junctionEnd(this.graph, v); v < end; v++) open(v);
    };
    // The sources' small cell, when all lie in one, none on its boundary, and nothing else opens it:
    // crossed from the sources to its exits by a Dijkstra inside it (CRP's query), not walked by the
    // A*; and when nothing else opens its big cell either, that is crossed too, over its small cells'
    // cliques (bigRow). With the free potential every node within a detour's slack of the sources is
    // settled, and near the sources that slack is still the zones' whole detour: the A* settled most
    // of the small cell and the boundaries of the big cell's others.
    let sourceCell = -1;
    if (fineStamp !== undefined) {
      const f = nodeCell[query.sources[0].node];
      if (query.sources.every((s) => nodeCell[s.node] === f && !this.onBoundary(f, s.node))) sourceCell = f;
    }
    if (sourceCell < 0) for (const s of query.sources) open(s.node);
    for (const t of targets) open(t.node);
    // A list with customized cliques opens only the big cells of its small ones, which stay closed
    // and are crossed by those cliques unless something else opens them (another list too).
    let custom = penalised === undefined && fineStamp !== undefined ? query.blockedCellCliques : undefined;
    const shared = (custom !== undefined && query.sharedCellCliques) || [];
    const bigCustom = (custom !== undefined && query.bigCellCliques) || [];
    this.custom = undefined;
    if (blocked !== undefined) {
      const lists = query.blockedRoadLists;
      if (lists) {
        for (let l = 0; l < lists.length; l++) {
          if (custom?.[l] !== undefined) continue;
          const list = lists[l];
          for (let k = 0; k < list.length; k++) { const r = list[k]; openRoad(r); }
        }
        if (custom !== undefined) {
          // Big cells with cliques around exactly the lists' roads in them: crossed by those unless
          // something else (an endpoint, a list without cliques) opens them; never the sources' own.
          const bigStamp = this.bigCustomStamp!, sourceBig = sourceCell >= 0 ? bigOf![sourceCell] : -1;
          for (let k = 0; k < bigCustom.length; k++) {
            const cells = bigCustom[k].cells;
            for (let j = 0; j < cells.length; j++) {
              const c = cells[j];
              if (openStamp[c] === stamp || c === sourceBig) continue;
              bigStamp[c] = stamp; this.bigCustomList![c] = k; this.bigCustomSlot![c] = j;
            }
          }
          // The lists' other big cells open; their small cells are crossed by the lists' cliques.
          for (let l = 0; l < lists.length; l++) {
            const cells = custom[l]?.cells;
            if (cells === undefined) continue;
            for (let j = 0; j < cells.length; j++) {
              const c = bigOf![cells[j]];
              if (openStamp[c] !== stamp && bigStamp[c] !== stamp) { openStamp[c] = stamp; opened++; }
            }
          }
          this.markLists(custom, shared);
          custom = this.custom;
        }
      } else {
        for (let r = 0; r < blocked.length; r++) if (blocked[r] !== 0) { openRoad(r); }
      }
    }
    if (penalised !== undefined) {
      const lists = penalty!.roadLists;
      if (lists) {
        for (const list of lists) for (let k = 0; k < list.length; k++) { const r = list[k]; if (perMetre![penalised[r]] !== 0) { openRoad(r); } }
      } else {
        for (let r = 0; r < penalised.length; r++) if (perMetre![penalised[r]] !== 0) { openRoad(r); }
      }
    }
    // Scheduled roads are walked: their cost depends on when they are reached.
    if (schedule !== undefined) for (const list of schedule.roadLists) for (let k = 0; k < list.length; k++) openRoad(list[k]);
    // Roads slower than the graph's cliques know are walked, unless cliques made with their times cross their cells.
    const retimed = byTime ? query.retimedRoads : undefined;
    if (retimed !== undefined) {
      const customStamp = custom !== undefined ? this.customStamp! : undefined;
      const openOwn = (v: number) => { if (customStamp === undefined || customStamp[nodeCell[v]] !== stamp) open(v); };
      for (let k = 0; k < retimed.length; k++) {
        const r = retimed[k];
        for (let v = roadFrom[r], end = junctionEnd(this.graph, v); v < end; v++) openOwn(v);
        for (let v = roadTo[r], end = junctionEnd(this.graph, v); v < end; v++) openOwn(v);
      }
    }
    // Small cells whose cliques charge the penalty: crossed by those unless opened above or by two
    // sets (walked), in big cells that open (a big cell's clique charges nothing).
    const penalisedSets = penalty !== undefined && fineStamp !== undefined ? query.penalisedCellCliques : undefined;
    if (penalisedSets !== undefined) {
      const penalisedStamp = this.penalisedStamp!, penalisedList = this.penalisedList!, penalisedSlot = this.penalisedSlot!;
      for (let k = 0; k < penalisedSets.length; k++) {
        const cells = penalisedSets[k]?.cells;
        if (cells === undefined) continue;
        for (let j = 0; j < cells.length; j++) {
          const f = cells[j];
          if (fineStamp![f] === stamp) continue;
          if (penalisedStamp[f] === stamp) { fineStamp![f] = stamp; continue; } // a second set: walked
          penalisedStamp[f] = stamp; penalisedList[f] = k; penalisedSlot[f] = j;
          const c = bigOf![f];
          if (openStamp[c] !== stamp) { openStamp[c] = stamp; opened++; }
        }
      }
    }
    this.unpackPenalty = penalisedSets !== undefined ? penalty : undefined;
    let rowLength = 0;
    if (sourceCell >= 0) {
      const big = bigOf![sourceCell];
      if (fineStamp![sourceCell] === stamp || this.penalisedStamp![sourceCell] === stamp) { // walked: a target or a road opened it, or its cliques charge a penalty
        sourceCell = -1;
        for (const s of query.sources) open(s.node);
      } else if (openStamp[big] === stamp) {
        rowLength = this.sourceRow(sourceCell, query.sources, blocked, byTime, millis);
      } else {
        rowLength = this.bigRow(big, this.sourceRow(sourceCell, query.sources, blocked, byTime, millis), metric, blocked, byTime, millis);
      }
    }
    this.openCount = opened;

    records.clear();
    if (this.pushedPi.length > records.values.length >>> 1) this.pushedPi = new Float64Array(records.values.length >>> 1);
    toTargets.reset(g.hierarchy![metric], targets);
    const left = penalty === undefined ? undefined : (this.penaltyLeft ??= new PenaltyBound(g));
    left?.reset(targets, penalty!, blocked);
    heap.clear();
    this.settledCount = 0;
    let pushedPi = this.pushedPi;
    for (const s of query.sources) {
      const i = records.improve(s.node, s.cost);
      if (i < 0) continue;
      records.words[4 * i + 3] = -1;
      let h = toTargets.pi(s.node);
      if (left !== undefined) h += left.of(s.node);
      if (i >= pushedPi.length) pushedPi = this.growPushedPi();
      pushedPi[i] = h;
      if (h !== Infinity && sourceCell < 0) heap.push(s.cost + h, s.node);
    }
    // The source cell's exits (or its big cell's), each reached as by a clique from the source that reached it first.
    for (let j = 0; j < rowLength; j++) {
      const cv = this.rowCost[j];
      if (cv === Infinity) continue;
      const v = this.rowNode[j];
      const i = records.improve(v, cv);
      if (i < 0) continue;
      records.words[4 * i + 3] = -2 - this.rowRoot[j];
      if (i >= pushedPi.length) pushedPi = this.growPushedPi();
      let h = toTargets.pi(v);
      if (left !== undefined) h += left.of(v);
      pushedPi[i] = h;
      if (h !== Infinity) heap.push(cv + h, v);
    }

    let best = Infinity;
    let bestTarget = -1;
    while (heap.size > 0) {
      const key = heap.peekKey();
      if (key >= best) break;
      const u = heap.pop();
      const iu = records.find(u);
      const cu = records.values[2 * iu];
      if (key !== cu + pushedPi[iu]) continue; // stale entry
      this.settledCount++;
      for (let t = 0; t < T; t++) {
        if (targets[t].node === u && cu + targets[t].cost < best) {
          best = cu + targets[t].cost;
          bestTarget = t;
        }
      }
      // The cell u is crossed in: its big cell when that is closed, else its small cell when that
      // is, else none (the roads of an open small cell). In a closed cell only entries (by a link
      // from another cell) and exits (by the clique) are ever reached. An exit the clique reached
      // leaves by links only: the clique already went from its entry to every exit (cheapest
      // paths inside the cell: two in a row never beat one).
      // Cells as ranges of nodeCell: a big cell is the row of its small cells, a small cell one.
      let level: Level | undefined;
      const f = nodeCell[u];
      let c = bigOf !== undefined ? bigOf[f] : f;
      let lo = c, span = 1;
      if (openStamp[c] !== stamp) {
        level = coarse;
        if (smallFirst !== undefined) { lo = smallFirst[c]; span = smallFirst[c + 1] - lo; }
      } else if (fineStamp !== undefined && fineStamp[f] !== stamp) {
        level = fine;
        c = lo = f;
      }
      const byClique = records.words[4 * iu + 3] <= -2;
      const slot = level !== undefined && !byClique ? slotIn(level.entryFirst, level.entryNode, c, u) : -1;
      if (level === undefined || (!byClique && slot < 0)) span = 0; // an open cell, or a closed cell's exit reached by a link: all links
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if ((nodeCell[v] - lo) >>> 0 < span) continue; // inside the closed cell: crossed by the clique below
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        let cv = cu + (byTime ? millis[road] * COST_STEP.duration : roadLengthCm[road] * COST_STEP.distance);
        if (penalised !== undefined) cv += perMetre![penalised[road]] * (roadLengthCm[road] * COST_STEP.distance);
        if (timed !== undefined && timed[road] !== 0) {
          // Waiting only delays (FIFO): the earliest arrival at u stays the best to leave from.
          const wait = schedule!.wait(timed[road], cu, millis[road] * COST_STEP.duration);
          if (wait === Infinity) continue;
          cv += wait;
        }
        const i = records.improve(v, cv);
        if (i < 0) continue;
        records.words[4 * i + 3] = e;
        if (i >= pushedPi.length) pushedPi = this.growPushedPi();
        let h = toTargets.pi(v);
        if (left !== undefined) h += left.of(v);
        pushedPi[i] = h;
        if (h !== Infinity) heap.push(cv + h, v);
      }
      if (slot < 0) continue;
      const { exitFirst, exitNode } = level!;
      if (penalisedSets !== undefined && level === fine && this.penalisedStamp![c] === stamp) {
        // Crossed by its clique with the penalty (float64 steps, Infinity where no path joins the pair).
        const x0 = exitFirst[c], X = exitFirst[c + 1] - x0;
        const set = penalisedSets[this.penalisedList![c]]!;
        const own = set[metric], row = set.first[this.penalisedSlot![c]] + slot * X;
        for (let j = 0; j < X; j++) {
          const w = own[row + j];
          if (w === Infinity) continue;
          const v = exitNode[x0 + j];
          const cv = cu + w * step;
          const i = records.improve(v, cv);
          if (i < 0) continue;
          records.words[4 * i + 3] = -2 - u;
          if (i >= pushedPi.length) pushedPi = this.growPushedPi();
          const h = toTargets.pi(v) + left!.of(v);
          pushedPi[i] = h;
          if (h !== Infinity) heap.push(cv + h, v);
        }
        continue;
      }
      let clique = level!.cliques[metric];
      const x0 = exitFirst[c], X = exitFirst[c + 1] - x0;
      let row = level!.cliqueFirst[c] + slot * X;
      if (custom !== undefined && level === fine && this.customStamp![c] === stamp) {
        const own = custom[this.customList![c]]!;
        clique = own[metric];
        row = own.first[this.customSlot![c]] + slot * X;
      } else if (level === coarse && this.bigCustomStamp !== undefined && this.bigCustomStamp[c] === stamp) {
        const own = bigCustom[this.bigCustomList![c]];
        clique = own[metric];
        row = own.first[this.bigCustomSlot![c]] + slot * X;
      }
      for (let j = 0; j < X; j++) {
        const w = clique[row + j];
        if (w === UNREACHABLE) continue;
        const v = exitNode[x0 + j];
        const cv = cu + w * step;
        const i = records.improve(v, cv);
        if (i < 0) continue;
        records.words[4 * i + 3] = -2 - u; // reached through the clique from u
        if (i >= pushedPi.length) pushedPi = this.growPushedPi();
        let h = toTargets.pi(v);
        if (left !== undefined) h += left.of(v);
        pushedPi[i] = h;
        if (h !== Infinity) heap.push(cv + h, v);
      }
    }
    if (bestTarget < 0) return null;
    // The path backwards as nodes, links (an edge, or ~ the node a clique left from), costs and
    // potentials; read out before unpacking, which reuses the records.
    const path = this.path;
    path.length = 0;
    let node = targets[bestTarget].node;
    for (;;) {
      const i = records.find(node);
      const link = records.words[4 * i + 3];
      path.push(node, link, records.values[2 * i], pushedPi[i]);
      if (link === -1) break;
      node = link >= 0 ? g.edgeTailOf(link) : -2 - link;
    }
    const hops = path.length / 4 - 1;
    const at = (k: number) => 4 * (hops - k); // the k-th node from the source
    const source = query.sources.findIndex((s) => s.node === node && s.cost === path[at(0) + 2]);
    const edges: number[] = [];
    // A stretch's free path must drive no scheduled road either: its time there would differ.
    const avoided = penalised ?? timed;
    // With a penalty the potential adds the penalty still to pay: the free potential alone tells
    // the runs below (a hop that pays a penalty is never tight: its cost grows by more than a free
    // path's), and each run's free path is checked to drive no penalised road.
    if (left !== undefined) for (let k = 0; k <= hops; k++) path[at(k) + 3] -= left.of(path[at(k)]);
    // A hop on which the path's cost grows by what the potential falls (no slack gained) lies on a
    // free cheapest path to the targets, and so does a run of such hops: pi(a) <= d(a, b) + pi(b)
    // makes the run a cheapest path from a to b. Each run unpacks by one free CH query of the same
    // cost; the hops between runs (where the zones turn the path away) by halves as before, so no
    // query is spent on a stretch that a zone's detour makes dearer than the free path.
    const tolerance = 1e-9 * Math.max(1, best);
    const tight = (k: number) => Math.abs((path[at(k) + 2] - path[at(k - 1) + 2]) - (path[at(k - 1) + 3] - path[at(k) + 3])) <= tolerance;
    for (let k = 0; k < hops;) {
      const runTight = tight(k + 1);
      let j = k + 1;
      while (j < hops && tight(j + 1) === runTight) j++;
      this.unpack(k, j, at, blocked, avoided, metric, edges, true);
      k = j;
    }
    return { cost: best, source, target: bestTarget, edges };
  }

  /**
   * Appends the edges of hops lo .. hi-1 of the path. Roads as they are; a stretch with cliques as
   * the free CH path between its ends when that costs the same and drives no blocked road (the
   * usual case: one query for a long stretch), else its halves; a lone clique by a Dijkstra inside
   * its cell (after the free CH query with `loneQuery`: a run of one hop, not yet tried).
   */
  private unpack(lo: number, hi: number, at: (k: number) => number, blocked: Uint8Array | undefined, penalised: Uint8Array | undefined, metric: Metric, edges: number[], loneQuery = false): void {
    const path = this.path;
    let cliques = 0;
    for (let k = lo + 1; k <= hi; k++) if (path[at(k) + 1] < -1) cliques++;
    if (cliques === 0) {
      for (let k = lo + 1; k <= hi; k++) edges.push(path[at(k) + 1]);
      return;
    }
    const from = path[at(lo)], to = path[at(hi)];
    if (hi - lo === 1 && !loneQuery) {
      this.unpackClique(from, to, metric, blocked, edges);
      return;
    }
    // The free path must drive no penalised road either: its cost would then be more than wanted.
    if (this.appendFreePath(from, to, path[at(hi) + 2] - path[at(lo) + 2], 1e-9 * Math.max(1, path[at(hi) + 2]), metric, blocked, penalised, edges)) return;
    if (hi - lo === 1) {
      this.unpackClique(from, to, metric, blocked, edges);
      return;
    }
    const mid = (lo + hi) >>> 1;
    this.unpack(lo, mid, at, blocked, penalised, metric, edges);
    this.unpack(mid, hi, at, blocked, penalised, metric, edges);
  }

  /**
   * Appends the free CH path from `from` to `to` when it costs `want` (within `tolerance`) and
   * drives no road of `blocked` nor of `penalised`: then it is a cheapest path the hop stands for.
   * Returns whether it did.
   */
  private appendFreePath(
    from: number, to: number, want: number, tolerance: number, metric: Metric, blocked: Uint8Array | undefined, penalised: Uint8Array | undefined, edges: number[],
  ): boolean {
    const free = this.free.find([{ node: from, cost: 0, reversed: false }], [{ node: to, cost: 0, reversed: false }], metric);
    const { edgeRoad } = this.graph;
    if (free === null || Math.abs(free.cost - want) > tolerance) return false;
    if ((blocked !== undefined && !drivesNone(edgeRoad, free.edges, blocked)) || (penalised !== undefined && !drivesNone(edgeRoad, free.edges, penalised))) return false;
    // Under slower road times the free path costs `want` only if it drives none of them.
    if (metric === 'duration' && !timedAsGraph(this.graph, free.edges, this.millis)) return false;
    for (const e of free.edges) edges.push(e);
    return true;
  }

  /**
   * Appends the edges of the clique hop from `from` to `to` (the stamps are still the query's): a
   * big cell's customized clique over its small cells (unpackBig); any other by a Dijkstra over
   * the roads of the cell it crossed, the big cell when that is closed, else the small cell.
   */
  private unpackClique(from: number, to: number, metric: Metric, blocked: Uint8Array | undefined, edges: number[]): void {
    const { nodeCell, bigOf, smallFirst, stamp } = this;
    const f = nodeCell[to], big = bigOf !== undefined ? bigOf[f] : f;
    let lo = f, span = 1;
    if (this.coarse.openStamp[big] !== stamp && smallFirst !== undefined) {
      if (this.bigCustomStamp![big] === stamp) { this.unpackBig(from, to, big, metric, blocked, edges); return; }
      lo = smallFirst[big]; span = smallFirst[big + 1] - lo;
    }
    const start = edges.length;
    this.unpackInCell(from, to, lo, span, metric, blocked, edges);
    reverseFrom(edges, start);
  }

  /**
   * Appends the edges of a hop across big cell b by its customized clique: a Dijkstra inside b as
   * the A* crosses an open big cell (small cells by their cliques, customized ones by theirs, the
   * walked ones by their roads), in whole steps as the clique was summed; then each small cell's
   * clique on that path as the free CH path when that costs the same and drives no blocked road,
   * else by a Dijkstra in its cell. Costs a few hundred nodes where walking b's roads costs thousands.
   */
  private unpackBig(from: number, to: number, b: number, metric: Metric, blocked: Uint8Array | undefined, edges: number[]): void {
    const g = this.graph, nodeCell = this.nodeCell;
    const lo = this.smallFirst![b];
    const rec = this.overSmallCells(lo, this.smallFirst![b + 1] - lo, from, to, this.stepsOf(metric), metric, blocked, false);
    if (rec.find(to) < 0) throw new Error(`overlay search: no path inside big cell ${b} from ${from} to ${to} for its clique`);
    // The hops, last first, read out before the free queries below reuse the records.
    const hops = this.hops;
    hops.length = 0;
    for (let v = to; v !== from;) {
      const i = rec.find(v), link = rec.words[4 * i + 3];
      const u = link >= 0 ? g.edgeTailOf(link) : -2 - link;
      hops.push(u, v, link, rec.values[2 * i] - rec.values[2 * rec.find(u)]);
      v = u;
    }
    const step = COST_STEP[metric];
    for (let k = hops.length - 4; k >= 0; k -= 4) {
      const u = hops[k], v = hops[k + 1], link = hops[k + 2];
      if (link >= 0) { edges.push(link); continue; }
      const want = hops[k + 3] * step;
      if (this.appendFreePath(u, v, want, 1e-9 * Math.max(1, want), metric, blocked, undefined, edges)) continue;
      const start = edges.length;
      this.unpackInCell(u, v, nodeCell[v], 1, metric, blocked, edges);
      reverseFrom(edges, start);
    }
  }

  /**
   * A Dijkstra inside the cells [lo, lo + span) of nodeCell (a big cell's row of small cells, or
   * one cell) from `from` (an entry: its small cell's clique is crossed) until `to` is settled (or
   * everything, with -1), as the A* crosses an open big cell: closed small cells by their cliques
   * (customized ones, by the stamps, by theirs), the walked ones by their roads; every cell walked
   * with `walkAll`. In whole steps of the metric (`steps`: per road) as cliques are summed; skips
   * blocked roads. On the potential's records (free outside a search), links as the A*'s: an
   * edge, -2 - the clique's entry, -1 at `from`.
   */
  private overSmallCells(
    lo: number, span: number, from: number, to: number, steps: Uint32Array, metric: Metric, blocked: Uint8Array | undefined, walkAll: boolean,
    penalty?: Penalty,
  ): NodeRecords {
    const g = this.graph, { firstOut, edgeHead, edgeRoad, roadLengthCm } = g;
    // Per penalty class, its charge per centimetre in steps, as penaliseCells' cliques charge it.
    const penalised = penalty?.roads, perStepCm = penalty?.costPerMetre.map((c) => c * COST_STEP.distance / COST_STEP[metric]);
    const fine = this.fine, nodeCell = this.nodeCell, stamp = this.stamp;
    const fineStamp = fine?.openStamp, custom = this.custom;
    const rec = this.toTargets.records, heap = this.heap;
    rec.clear();
    heap.clear();
    rec.words[4 * rec.improve(from, 0) + 3] = -1;
    heap.push(0, from);
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      if (u === to) break;
      const iu = rec.find(u);
      if (key !== rec.values[2 * iu]) continue;
      const f = nodeCell[u], walked = walkAll || fineStamp![f] === stamp, word = rec.words[4 * iu + 3];
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if ((nodeCell[v] - lo) >>> 0 >= span || (!walked && nodeCell[v] === f)) continue; // out of b, or crossed by f's clique
        const r = edgeRoad[e];
        if (blocked !== undefined && blocked[r] !== 0) continue;
        let d = key + steps[r];
        if (penalised !== undefined && penalised[r] !== 0) d += perStepCm![penalised[r]] * roadLengthCm[r];
        const i = rec.improve(v, d);
        if (i < 0) continue;
        rec.words[4 * i + 3] = e;
        heap.push(d, v);
      }
      if (walked || word <= -2) continue; // an exit a clique reached leaves by links only
      const small = fine!, slot = slotIn(small.entryFirst, small.entryNode, f, u);
      if (slot < 0) continue;
      const x0 = small.exitFirst[f], X = small.exitFirst[f + 1] - x0;
      let clique = small.cliques[metric], row = small.cliqueFirst[f] + slot * X;
      if (custom !== undefined && this.customStamp![f] === stamp) {
        const own = custom[this.customList![f]]!;
        clique = own[metric];
        row = own.first[this.customSlot![f]] + slot * X;
      }
      for (let j = 0; j < X; j++) {
        const w = clique[row + j];
        if (w === UNREACHABLE) continue;
        const v = small.exitNode[x0 + j], d = key + w;
        const i = rec.improve(v, d);
        if (i < 0) continue;
        rec.words[4 * i + 3] = -2 - u;
        heap.push(d, v);
      }
    }
    return rec;
  }

  /** Appends, last edge first, a cheapest path from `from` to `to` over the open roads of the cells in [lo, lo + span) of nodeCell. */
  private unpackInCell(from: number, to: number, lo: number, span: number, metric: Metric, blocked: Uint8Array | undefined, reversedEdges: number[]): void {
    const g = this.graph;
    const rec = this.overSmallCells(lo, span, from, to, this.stepsOf(metric), metric, blocked, true, this.unpackPenalty);
    // Only cliques that do not match the cell (customized around other roads than the query blocks) leave it unreached.
    if (rec.find(to) < 0) throw new Error(`overlay search: no path inside the cell from ${from} to ${to} for its clique`);
    for (let v = to; v !== from;) {
      const e = rec.words[4 * rec.find(v) + 3];
      reversedEdges.push(e);
      v = g.edgeTailOf(e);
    }
  }

  /**
   * Cheapest costs from the sources to the exits of their small cell f over its open roads (a
   * Dijkstra inside the cell, on the potential's records before its reset), into rowCost, and the
   * source each came from, into rowRoot; returns the cell's exit count. Costs are summed as the
   * A* sums them, road by road.
   */
  private sourceRow(f: number, sources: readonly { node: number; cost: number }[], blocked: Uint8Array | undefined, byTime: boolean, millis: Uint32Array): number {
    const g = this.graph, { firstOut, edgeHead, edgeRoad, roadLengthCm } = g;
    const nodeCell = this.nodeCell;
    const rec = this.toTargets.records, heap = this.heap;
    rec.clear();
    heap.clear();
    for (const s of sources) {
      const i = rec.improve(s.node, s.cost);
      if (i < 0) continue;
      rec.words[4 * i + 3] = s.node;
      heap.push(s.cost, s.node);
    }
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const iu = rec.find(u);
      if (key !== rec.values[2 * iu]) continue;
      const root = rec.words[4 * iu + 3];
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if (nodeCell[v] !== f) continue;
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        const cv = key + (byTime ? millis[road] * COST_STEP.duration : roadLengthCm[road] * COST_STEP.distance);
        const i = rec.improve(v, cv);
        if (i < 0) continue;
        rec.words[4 * i + 3] = root;
        heap.push(cv, v);
      }
    }
    const { exitFirst, exitNode } = this.fine!;
    const x0 = exitFirst[f], X = exitFirst[f + 1] - x0;
    this.rowRoom(X);
    for (let j = 0; j < X; j++) {
      const i = rec.find(exitNode[x0 + j]);
      this.rowNode[j] = exitNode[x0 + j];
      this.rowCost[j] = i < 0 ? Infinity : rec.values[2 * i];
      this.rowRoot[j] = i < 0 ? -1 : rec.words[4 * i + 3];
    }
    return X;
  }

  /**
   * From the first `length` entries of the row (sourceRow's: the sources' small cell's exits) to
   * the exits of big cell b, which nothing opens: a Dijkstra over b's small cells, each crossed by
   * its clique from the entry a link arrived at, as the A* crosses them. Replaces the row with
   * b's exits reached (those with a link out of b) and returns how many.
   */
  private bigRow(b: number, length: number, metric: Metric, blocked: Uint8Array | undefined, byTime: boolean, millis: Uint32Array): number {
    const g = this.graph, { firstOut, edgeHead, edgeRoad, roadLengthCm } = g;
    const nodeCell = this.nodeCell, fine = this.fine!;
    const lo = this.smallFirst![b], span = this.smallFirst![b + 1] - lo;
    const clique = fine.cliques[metric], step = COST_STEP[metric];
    const rec = this.toTargets.records, heap = this.heap;
    rec.clear();
    heap.clear();
    // Per entry, its source and how it was reached: 2 * source, + 1 by a link (an entry whose clique is still to cross).
    for (let j = 0; j < length; j++) {
      if (this.rowCost[j] === Infinity) continue;
      const i = rec.improve(this.rowNode[j], this.rowCost[j]);
      if (i < 0) continue;
      rec.words[4 * i + 3] = 2 * this.rowRoot[j];
      heap.push(this.rowCost[j], this.rowNode[j]);
    }
    let out = 0;
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const iu = rec.find(u);
      if (key !== rec.values[2 * iu]) continue;
      const word = rec.words[4 * iu + 3], root = word >> 1, f = nodeCell[u];
      let leaves = false;
      for (let e = firstOut[u], end = firstOut[u + 1]; e < end; e++) {
        const v = edgeHead[e];
        if (nodeCell[v] === f) continue; // inside u's small cell: its clique
        if ((nodeCell[v] - lo) >>> 0 >= span) { leaves = true; continue; }
        const road = edgeRoad[e];
        if (blocked !== undefined && blocked[road] !== 0) continue;
        const cv = key + (byTime ? millis[road] * COST_STEP.duration : roadLengthCm[road] * COST_STEP.distance);
        const i = rec.improve(v, cv);
        if (i < 0) continue;
        rec.words[4 * i + 3] = 2 * root + 1;
        heap.push(cv, v);
      }
      if (leaves) {
        this.rowRoom(out + 1);
        this.rowNode[out] = u; this.rowCost[out] = key; this.rowRoot[out] = root;
        out++;
      }
      if ((word & 1) === 0) continue; // reached by a clique: its cell already crossed
      const slot = slotIn(fine.entryFirst, fine.entryNode, f, u);
      if (slot < 0) continue;
      const x0 = fine.exitFirst[f], X = fine.exitFirst[f + 1] - x0;
      const row = fine.cliqueFirst[f] + slot * X;
      for (let j = 0; j < X; j++) {
        const w = clique[row + j];
        if (w === UNREACHABLE) continue;
        const v = fine.exitNode[x0 + j], cv = key + w * step;
        const i = rec.improve(v, cv);
        if (i < 0) continue;
        rec.words[4 * i + 3] = 2 * root;
        heap.push(cv, v);
      }
    }
    return out;
  }

  /** Per road, the steps of the metric the last query searched in (its road times for durations). */
  private stepsOf(metric: Metric): Uint32Array {
    return metric === 'duration' ? this.millis : this.graph.roadLengthCm;
  }

  /** Room for n entries in the row, keeping those it has. */
  private rowRoom(n: number): void {
    if (this.rowCost.length >= n) return;
    const grown = (a: Int32Array) => { const b = new Int32Array(2 * n); b.set(a); return b; };
    this.rowNode = grown(this.rowNode);
    this.rowRoot = grown(this.rowRoot);
    const cost = new Float64Array(2 * n);
    cost.set(this.rowCost);
    this.rowCost = cost;
  }

  /** Whether v is an entry or an exit of small cell f. */
  private onBoundary(f: number, v: number): boolean {
    const fine = this.fine!;
    return slotIn(fine.entryFirst, fine.entryNode, f, v) >= 0 || slotIn(fine.exitFirst, fine.exitNode, f, v) >= 0;
  }

  /** Bytes of its search state (its records' and the potential's: see NodeRecords). */
  get stateBytes(): number {
    return this.records.byteSize + this.toTargets.records.byteSize + this.pushedPi.byteLength + this.coarse.openStamp.byteLength + 16 * (this.fine?.openStamp.length ?? 0);
  }

  private growPushedPi(): Float64Array {
    const grown = new Float64Array(this.records.values.length >>> 1);
    grown.set(this.pushedPi);
    return (this.pushedPi = grown);
  }
}

/** Room for the cliques of the given cells of a level (sorted in place), with each one's offset. */
function cliqueArrays(level: Level, cells: Uint32Array): BlockedCellCliques {
  cells.sort();
  const first = new Float64Array(cells.length + 1);
  for (let j = 0; j < cells.length; j++) first[j + 1] = first[j] + (level.cliqueFirst[cells[j] + 1] - level.cliqueFirst[cells[j]]);
  return { cells, first, duration: new Uint32Array(first[cells.length]), distance: new Uint32Array(first[cells.length]) };
}

function reverseFrom(a: number[], start: number): void {
  for (let i = start, j = a.length - 1; i < j; i++, j--) { const x = a[i]; a[i] = a[j]; a[j] = x; }
}

/**
 * The end of junction v's node range: turn restrictions' copies of a junction follow it in id
 * order at its position (junctionNodes.ts), and a road's edges may end at them, in whatever cell
 * the partition put them.
 */
export function junctionEnd(graph: RoadGraph, v: number): number {
  const { nodeLatE7: lat, nodeLonE7: lon } = graph, n = lat.length;
  let end = v + 1;
  while (end < n && lat[end] === lat[v] && lon[end] === lon[v]) end++;
  return end;
}
