import { COST_STEP, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { levelView, slotIn, smallCellRanges, UNREACHABLE, type CellOverlay, type OverlayLevel } from '../hierarchy/CellOverlay.js';
import { BucketIndex, meetInBuckets, type SettlingSearch } from './BucketIndex.js';
import type { CostedEndpoint } from './BucketManyToMany.js';
import { MinHeap } from '../structures/MinHeap.js';
import { NodeRecords } from '../structures/NodeRecords.js';
import type { Penalty } from './PathSearch.js';
import { junctionEnd } from './OverlaySearch.js';
import { otherMetric } from '../hierarchy/otherMetricArcCosts.js';

/**
 * Most small cells one matrix customizes for its closed roads (a search per entry inside each, for
 * the request's metric); the cells past it are walked by every search that reaches them, as exact.
 */
export const MAX_MATRIX_CUSTOMIZED_CELLS = 512;

/** Searches crossing the graph below which cells with penalised roads are walked, not customized (about a small cell's entries). */
const PRICED_CELLS_WALKED_BELOW = 16;

/**
 * Many-to-many costs on the cell overlay around closed roads, as the multi-level Dijkstra answers
 * OSRM's MLD table: a backward search per target leaves (target, cost, second) in a bucket at every
 * node it settles, then a forward search per source scans the buckets of the nodes it settles
 * (meetInBuckets). Each search walks the roads of its own endpoints' small cells, crosses the other
 * small cells of its own big cell by their cliques, and every other big cell by its own. The cells
 * holding closed roads are customized for the run's metric (cliques in real units without those
 * roads, CRP's customization: small cells, then their big cells over those), so no search walks a
 * zone; a run around the same roads as the last one (a scheduled matrix's passes, a client's
 * matrices around its zones) crosses the cells customized then. The side with more endpoints
 * stays inside its endpoints' big cells; the other crosses the graph. Exact: a cheapest path last
 * enters its target's big cell at one of its entries (or never leaves it) and first leaves its
 * source's at an exit; both sides settle that node at its exact costs, and every clique is a real
 * path that avoids the closed roads. Costs and the other
 * metric's value of the same path (the overlay's second cliques) in the units of the CH buckets;
 * with a penalty, the plain cost too. Not re-entrant.
 */
export class OverlayManyToMany {
  private readonly big: OverlayLevel;
  private readonly small: OverlayLevel;
  private readonly nodeCell: Uint16Array | Uint32Array;
  private readonly bigOf: Uint16Array | Uint32Array;
  private readonly smallFirst: Uint32Array;
  /**
   * Per big cell: the run's stamp when a closed road lies in it; then bigSlot its clique customized
   * over its small cells' (crossed whole by searches whose endpoints lie elsewhere), or -1.
   */
  private readonly bigOpen: Uint32Array;
  private readonly bigSlot: Int32Array;
  /** Per big cell: the run's stamp when a small cell walked for its penalty lies in it (not customized). */
  private readonly walkedBig: Uint32Array;
  private bigCustom = emptyCliques();
  /** Per small cell: the run's stamp when a closed road lies in it; then customSlot its customized clique, or -1 (walked). */
  private readonly smallClosed: Uint32Array;
  private readonly customSlot: Int32Array;
  private custom = emptyCliques();
  /** The last closing without a penalty (close()): what it was made for, the cells it marked and their cliques. */
  private closing?: Closing;
  /** Per cell of each level: the search's stamp when an endpoint of the search lies in it (walked or opened). */
  private readonly ownSmall: Uint32Array;
  private readonly ownBig: Uint32Array;
  /** Per cell of each level: the run's stamp when `fixed` (run's) holds its clique; then its slot there. */
  private readonly fixedSmallRun: Uint32Array;
  private readonly fixedSmallSlot: Int32Array;
  private readonly fixedBigRun: Uint32Array;
  private readonly fixedBigSlot: Int32Array;
  private fixed?: FixedCliques;
  private runStamp = 0;
  private searchStamp = 0;
  private readonly records: NodeRecords;
  private secondOf = new Float64Array(4096);
  private plainOf = new Float64Array(4096);
  private readonly heap = new MinHeap(1024);
  private readonly buckets: BucketIndex;
  /** Nodes settled by the last run, all searches together. */
  settledCount = 0;
  /** Per road, the run's travel times in whole milliseconds (run's `millis`, else the graph's). */
  private millis: Uint32Array;
  /** What backward searches read: the graph's reverse adjacency, derived when the engine is made (an edge's tail by RoadGraph.edgeTailOf: no array per edge). */
  private readonly reverse: { firstIn: Uint32Array; inEdge: Uint32Array };

  /**
   * `records` and `buckets`: lent by searches on the same thread that never run at the same time
   * (the CH's many-to-many, a router's route search), so a matrix thread holds one of each.
   */
  constructor(
    private readonly graph: RoadGraph, overlay: CellOverlay & { fine: CellOverlay },
    records = new NodeRecords(graph.nodeCount), buckets = new BucketIndex(graph.nodeCount),
  ) {
    const n = graph.nodeCount;
    this.big = levelView(overlay);
    this.small = levelView(overlay.fine);
    this.nodeCell = overlay.fine.cellOf;
    this.bigOf = overlay.cellOf;
    const bigCells = overlay.entryFirst.length - 1, smallCells = overlay.fine.entryFirst.length - 1;
    const ranges = smallCellRanges(overlay.cellOf, bigCells);
    if (typeof ranges === 'string') throw new Error(`the cell overlay's ${ranges}`);
    this.smallFirst = ranges;
    this.bigOpen = new Uint32Array(bigCells);
    this.bigSlot = new Int32Array(bigCells);
    this.walkedBig = new Uint32Array(bigCells);
    this.ownBig = new Uint32Array(bigCells);
    this.smallClosed = new Uint32Array(smallCells);
    this.ownSmall = new Uint32Array(smallCells);
    this.customSlot = new Int32Array(smallCells);
    this.fixedSmallRun = new Uint32Array(smallCells);
    this.fixedSmallSlot = new Int32Array(smallCells);
    this.fixedBigRun = new Uint32Array(bigCells);
    this.fixedBigSlot = new Int32Array(bigCells);
    this.records = records;
    this.buckets = buckets;
    this.millis = graph.roadMillis;
    this.reverse = graph.reverseAdjacency();
  }

  /**
   * Fills `outCost[s * targets.length + t]` (and `outSecond`: the other metric along the same
   * path) with the cheapest cost from any endpoint of source s to any endpoint of target t around
   * the roads `blocked` marks (`closedRoads` lists them, repeats allowed, and any other road whose
   * cost differs from the overlay's cliques': a vehicle's slower roads), endpoint costs included;
   * Infinity where none connects. Empty endpoint lists leave their row or column at Infinity.
   * With `penalty` (and `outPlain`, the costs without it), the roads it prices cost their penalty
   * too, and their cells are walked by every search (a clique knows no penalty). With `millis`, roads
   * take those times (a vehicle's, never below the graph's; `closedRoads` then lists the roads
   * where they differ, so their cells' cliques are made with them). With `fixed` (fixedCliques'
   * for the metric: a vehicle class's cells, made once), its cells are crossed by its cliques
   * unless the run closes or prices a road in them: `closedRoads` need not list its roads then.
   */
  run(
    metric: Metric, sources: CostedEndpoint[][], targets: CostedEndpoint[][], blocked: Uint8Array, closedRoads: ArrayLike<number>,
    outCost: Float64Array, outSecond: Float64Array, penalty?: Penalty, outPlain?: Float64Array, millis?: Uint32Array, fixed?: FixedCliques,
  ): void {
    this.settledCount = 0;
    this.millis = millis ?? this.graph.roadMillis;
    if (fixed && fixed.metric !== metric) throw new Error(`a ${fixed.metric} class's cliques for a ${metric} matrix`);
    this.fixed = fixed;
    const count = (lists: CostedEndpoint[][]) => lists.reduce((n, l) => n + (l.length > 0 ? 1 : 0), 0);
    const wide = Math.min(count(sources), count(targets));
    // Penalised cells are customized when more searches would walk them than a cell has entries
    // (a customization is a search per entry): a stop inside a zone on every other row, not one.
    const last = this.closing;
    // `blocked` marks exactly the listed roads (and roads whose times differ are listed): the list says what a closing was made for.
    if (penalty === undefined && last !== undefined && last.metric === metric && last.millis === this.millis && last.fixed === fixed
      && last.roads.length === closedRoads.length && last.roads.every((r, k) => r === closedRoads[k])) {
      this.reclose(last);
    } else {
      const marked = this.close(metric, blocked, closedRoads, penalty, wide > PRICED_CELLS_WALKED_BELOW);
      if (penalty === undefined) {
        this.closing = { metric, roads: Uint32Array.from(closedRoads), millis: this.millis, fixed, ...marked, custom: this.custom, bigCustom: this.bigCustom };
      }
    }
    // One side's searches stay in their endpoints' big cells: a cheapest path last enters the big
    // cell of its target at one of that cell's entries (or never leaves it), and first leaves its
    // source's at one of its exits, where the other side's searches, which cross the whole graph,
    // meet it. The side with fewer endpoints crosses the graph.
    const forwardWide = count(sources) <= count(targets);
    const searchFrom = (from: CostedEndpoint[], forward: boolean): SettlingSearch | undefined =>
      (from.length === 0 ? undefined : (settled) => this.search(metric, from, forward, blocked, settled, -1, forward !== forwardWide, penalty));
    meetInBuckets(this.buckets, sources.length, targets.length, (s) => searchFrom(sources[s], true), (t) => searchFrom(targets[t], false), outCost, outSecond, outPlain);
  }

  /**
   * A vehicle class's cliques for `metric`, made once: every small cell holding an end of one of
   * `closedRoads` (its closed roads and those its times slow) customized without the roads
   * `blocked` marks in `millis`' times, and their big cells over them, in whole steps of the metric
   * with the other metric's steps along the same path (as the overlay's own). With `penalty` (its
   * roadLists: the class's destination-only roads), the cells of the roads it prices join them,
   * customized with their charge (`priced`: costs in real units, the plain cost of each path in
   * whole steps), for the searches that must drive those roads. run() crosses these cells by them
   * when given them.
   */
  fixedCliques(metric: Metric, blocked: Uint8Array, closedRoads: ArrayLike<number>, millis?: Uint32Array, penalty?: Penalty & { roadLists: ArrayLike<number>[] }): FixedCliques {
    this.millis = millis ?? this.graph.roadMillis;
    this.fixed = undefined;
    this.close(metric, blocked, closedRoads, penalty, true, Infinity);
    const smallCells: number[] = [], bigCells: number[] = [];
    for (let f = 0; f < this.smallClosed.length; f++) if (this.smallClosed[f] === this.runStamp) smallCells.push(f);
    for (let b = 0; b < this.bigOpen.length; b++) if (this.bigOpen[b] === this.runStamp) bigCells.push(b);
    // Every marked cell was customized, in ascending order (close()): the run's slots are their places.
    // The other metric (and the plain cost) in whole steps; a charged cost passes 32 bits, so priced
    // cliques keep it in real units as customized.
    const priced = penalty !== undefined;
    const step = COST_STEP[metric], otherStep = COST_STEP[otherMetric(metric)];
    const inSteps = (cells: number[], made: Cliques, slotOf: Int32Array): FixedCliques['small'] => {
      cells.forEach((c, j) => { if (slotOf[c] !== j) throw new Error(`cell ${c} customized out of order`); });
      const n = made.cost.length;
      const cost = priced ? made.cost : new Uint32Array(n), second = new Uint32Array(n), plain = priced ? new Uint32Array(n) : undefined;
      for (let k = 0; k < n; k++) {
        const c = made.cost[k];
        if (c === Infinity) {
          if (!priced) cost[k] = UNREACHABLE;
          second[k] = UNREACHABLE;
          continue;
        }
        if (!priced) cost[k] = Math.round(c / step);
        second[k] = Math.round(made.second[k] / otherStep);
        if (plain) plain[k] = Math.round(made.plain[k] / step);
      }
      return { cells: Uint32Array.from(cells), first: made.first, cost, second, ...(plain && { plain }) };
    };
    const made = { metric, priced, small: inSteps(smallCells, this.custom, this.customSlot), big: inSteps(bigCells, this.bigCustom, this.bigSlot) };
    // The real-unit cliques they came from: not kept until the next run.
    this.custom = emptyCliques();
    this.bigCustom = emptyCliques();
    return made;
  }

  /**
   * Marks the run's closed cells: the small cells holding an end of a closed or penalised road,
   * customized for the metric (their cliques from searches inside each, without the closed roads
   * and with the penalty), up to MAX_MATRIX_CUSTOMIZED_CELLS of them (the rest walked); then their
   * big cells, customized over those cliques (a search per entry inside the big cell), so a search
   * crosses them whole unless one of its endpoints lies inside.
   */
  private close(
    metric: Metric, blocked: Uint8Array, closedRoads: ArrayLike<number>, penalty: Penalty | undefined, customizePriced: boolean, maxCells = MAX_MATRIX_CUSTOMIZED_CELLS,
  ): Pick<Closing, 'cells' | 'bigs' | 'customized' | 'customizedBigs'> {
    const stamp = this.newRun();
    const { nodeCell, bigOf, smallClosed, bigOpen, bigSlot, customSlot } = this;
    const { roadFrom, roadTo } = this.graph;
    const cells: number[] = [], bigs: number[] = [];
    const mark = (v: number) => {
      const f = nodeCell[v];
      if (smallClosed[f] === stamp) return;
      smallClosed[f] = stamp;
      customSlot[f] = -1;
      if (bigOpen[bigOf[f]] !== stamp) { bigOpen[bigOf[f]] = stamp; bigSlot[bigOf[f]] = -1; bigs.push(bigOf[f]); }
      cells.push(f);
    };
    // A road's edges may end at copies of its end junctions (turn restrictions): their cells close too.
    const markRoad = (r: number) => {
      for (let v = roadFrom[r], end = junctionEnd(this.graph, v); v < end; v++) mark(v);
      for (let v = roadTo[r], end = junctionEnd(this.graph, v); v < end; v++) mark(v);
    };
    let walkedFrom = Infinity; // cells[walkedFrom ..] are walked, and their big cells crossed small cell by small cell
    if (penalty) {
      const { roads: classes, costPerMetre } = penalty;
      const markPriced = (r: number) => { if (costPerMetre[classes[r]] !== 0) markRoad(r); };
      if (!customizePriced) walkedFrom = 0;
      if (penalty.roadLists) for (const list of penalty.roadLists) for (let k = 0; k < list.length; k++) markPriced(list[k]);
      else for (let r = 0; r < classes.length; r++) markPriced(r);
      if (!customizePriced) {
        const walked = new Set(cells);
        for (let k = 0; k < closedRoads.length; k++) markRoad(closedRoads[k]);
        const rest = cells.filter((f) => !walked.has(f));
        walkedFrom = rest.length;
        cells.length = 0;
        for (const f of rest) cells.push(f);
        for (const f of walked) { cells.push(f); this.walkedBig[bigOf[f]] = stamp; }
      }
    }
    if (walkedFrom === Infinity) for (let k = 0; k < closedRoads.length; k++) markRoad(closedRoads[k]);
    const customized = cells.slice(0, Math.min(walkedFrom, maxCells)).sort((a, b) => a - b);
    this.custom = this.customize(metric, this.small, customized, blocked, penalty, (f) => ({ within: f, withinSmall: true }));
    for (let j = 0; j < customized.length; j++) customSlot[customized[j]] = j;
    const customizedBigs = bigs.filter((b) => this.walkedBig[b] !== stamp).sort((a, b) => a - b);
    this.bigCustom = this.customize(metric, this.big, customizedBigs, blocked, penalty, (b) => ({ within: b, withinSmall: false }));
    for (let j = 0; j < customizedBigs.length; j++) bigSlot[customizedBigs[j]] = j;
    return { cells, bigs, customized, customizedBigs };
  }

  /** A new run's stamp, with the run's `fixed` cells stamped. */
  private newRun(): number {
    if (++this.runStamp === 0xffffffff) {
      for (const a of [this.smallClosed, this.bigOpen, this.walkedBig, this.fixedSmallRun, this.fixedBigRun]) a.fill(0);
      this.runStamp = 1;
    }
    const stamp = this.runStamp;
    const fixed = this.fixed;
    if (fixed) {
      for (let j = 0; j < fixed.small.cells.length; j++) { this.fixedSmallRun[fixed.small.cells[j]] = stamp; this.fixedSmallSlot[fixed.small.cells[j]] = j; }
      for (let j = 0; j < fixed.big.cells.length; j++) { this.fixedBigRun[fixed.big.cells[j]] = stamp; this.fixedBigSlot[fixed.big.cells[j]] = j; }
    }
    return stamp;
  }

  /** The cells `closing` marked, marked again for a new run, crossed by the cliques customized then (as close() left them). */
  private reclose(closing: Closing): void {
    const stamp = this.newRun();
    const { smallClosed, bigOpen, bigSlot, customSlot } = this;
    for (const f of closing.cells) { smallClosed[f] = stamp; customSlot[f] = -1; }
    for (const b of closing.bigs) { bigOpen[b] = stamp; bigSlot[b] = -1; }
    for (let j = 0; j < closing.customized.length; j++) customSlot[closing.customized[j]] = j;
    for (let j = 0; j < closing.customizedBigs.length; j++) bigSlot[closing.customizedBigs[j]] = j;
    this.custom = closing.custom;
    this.bigCustom = closing.bigCustom;
  }

  /**
   * The given cells of `level` with their cliques in real units (cost with the penalty, second
   * value, plain cost): a search from each entry inside the cell, read at its exits.
   */
  private customize(
    metric: Metric, level: OverlayLevel, cells: number[], blocked: Uint8Array, penalty: Penalty | undefined,
    inside: (cell: number) => { within: number; withinSmall: boolean },
  ): Cliques {
    const first = new Float64Array(cells.length + 1);
    for (let j = 0; j < cells.length; j++) {
      const c = cells[j];
      first[j + 1] = first[j] + (level.entryFirst[c + 1] - level.entryFirst[c]) * (level.exitFirst[c + 1] - level.exitFirst[c]);
    }
    const size = first[cells.length];
    const out: Cliques = { first, cost: new Float64Array(size).fill(Infinity), second: new Float64Array(size), plain: new Float64Array(size) };
    const records = this.records;
    for (let j = 0; j < cells.length; j++) {
      const c = cells[j];
      const { within, withinSmall } = inside(c);
      const e0 = level.entryFirst[c], E = level.entryFirst[c + 1] - e0, x0 = level.exitFirst[c], X = level.exitFirst[c + 1] - x0;
      for (let i = 0; i < E; i++) {
        this.search(metric, [{ node: level.entryNode[e0 + i], cost: 0, second: 0 }], true, blocked, () => {}, within, false, penalty, withinSmall);
        const row = first[j] + i * X;
        for (let k = 0; k < X; k++) {
          const at = records.find(level.exitNode[x0 + k]);
          if (at < 0) continue;
          out.cost[row + k] = records.values[2 * at];
          out.second[row + k] = this.secondOf[at];
          out.plain[row + k] = this.plainOf[at];
        }
      }
    }
    return out;
  }

  /**
   * One search from `from` (forward over out-edges and clique rows, or backward over in-edges and
   * clique columns), calling `settled` for every node it settles with its cost and second value.
   * With `within`, a cell's customization: only inside that big cell, its small cells all crossed
   * by their cliques (or walked where closed without one), none walked for the endpoints; with
   * `withinSmall`, only inside that small cell, walked. With `ownOnly`, only inside the big cells of
   * the endpoints. With `penalty`, a priced road costs its penalty too, and `settled` also gets the
   * cost without it.
   */
  private search(
    metric: Metric, from: CostedEndpoint[], forward: boolean, blocked: Uint8Array,
    settled: (node: number, cost: number, second: number, plain: number) => void, within = -1, ownOnly = false, penalty?: Penalty,
    withinSmall = false,
  ): void {
    const g = this.graph;
    const { firstOut, edgeHead, edgeRoad } = g;
    const firstIn = forward ? firstOut : this.reverse.firstIn, inEdge = forward ? undefined : this.reverse.inEdge;
    const millis = this.millis;
    const steps = metric === 'duration' ? millis : g.roadLengthCm, otherSteps = metric === 'duration' ? g.roadLengthCm : millis;
    const step = COST_STEP[metric], otherStep = COST_STEP[otherMetric(metric)];
    const { nodeCell, bigOf, smallFirst, ownSmall, ownBig, bigOpen, bigSlot, smallClosed, customSlot, records, heap, big, small } = this;
    const { fixed, fixedSmallRun, fixedSmallSlot, fixedBigRun, fixedBigSlot } = this;
    const run = this.runStamp;
    if (++this.searchStamp === 0xffffffff) { ownSmall.fill(0); ownBig.fill(0); this.searchStamp = 1; }
    const stamp = this.searchStamp;
    if (within < 0 || withinSmall) {
      for (const e of from) {
        const f = nodeCell[e.node];
        ownSmall[f] = stamp;
        ownBig[bigOf[f]] = stamp;
      }
    }
    records.clear();
    heap.clear();
    const classes = penalty?.roads, perMetre = penalty?.costPerMetre, lengthCm = g.roadLengthCm;
    let secondOf = this.secondOf, plainOf = this.plainOf;
    const relax = (v: number, c: number, s2: number, p: number, byClique: number) => {
      const i = records.improve(v, c);
      if (i < 0) return;
      records.words[4 * i + 3] = byClique;
      if (i >= secondOf.length) {
        const size = Math.max(2 * secondOf.length, i + 1);
        const grown = new Float64Array(size), grownPlain = new Float64Array(size);
        grown.set(secondOf);
        grownPlain.set(plainOf);
        secondOf = this.secondOf = grown;
        plainOf = this.plainOf = grownPlain;
      }
      secondOf[i] = s2;
      plainOf[i] = p;
      heap.push(c, v);
    };
    for (const e of from) relax(e.node, e.cost, e.second, e.plain ?? e.cost, 0);
    while (heap.size > 0) {
      const key = heap.peekKey();
      const u = heap.pop();
      const iu = records.find(u);
      if (key !== records.values[2 * iu]) continue; // stale
      const su = secondOf[iu], pu = plainOf[iu];
      this.settledCount++;
      settled(u, key, su, pu);
      // The cell u is crossed in: its big cell when closed for this search, else its small cell
      // when that is, else none (walked). In a closed cell only entries (by a link) and exits (by
      // the clique) are reached, backwards the other way round; a node the clique reached leaves
      // by links only.
      const f = nodeCell[u], b = bigOf[f];
      let level: OverlayLevel | undefined, c = 0, lo = 0, span = 0;
      // A clique: the overlay's in whole steps, or one customized for the run in real units.
      let cost: Uint32Array | Float64Array | undefined, second: Uint32Array | Float64Array | undefined, plain: Uint32Array | Float64Array | undefined;
      let base = 0, scale = step, secondScale = otherStep, plainScale = 1;
      if (ownBig[b] !== stamp && (within < 0 || withinSmall) && (bigOpen[b] !== run || bigSlot[b] >= 0)) {
        level = big; c = b; lo = smallFirst[b]; span = smallFirst[b + 1] - lo;
        if (bigOpen[b] === run) {
          ({ cost, second, plain } = this.bigCustom); base = this.bigCustom.first[bigSlot[b]]; scale = secondScale = 1;
        } else if (fixedBigRun[b] === run) {
          ({ cost, second, plain } = fixed!.big); base = fixed!.big.first[fixedBigSlot[b]];
          if (fixed!.priced) { scale = 1; plainScale = step; }
        } else {
          cost = big.cliques[metric]; second = big.seconds[metric]; base = big.cliqueFirst[b];
        }
      } else if (ownSmall[f] !== stamp && !(smallClosed[f] === run && customSlot[f] < 0)) {
        level = small; c = lo = f; span = 1;
        if (smallClosed[f] === run) {
          ({ cost, second, plain } = this.custom); base = this.custom.first[customSlot[f]]; scale = secondScale = 1;
        } else if (fixedSmallRun[f] === run) {
          ({ cost, second, plain } = fixed!.small); base = fixed!.small.first[fixedSmallSlot[f]];
          if (fixed!.priced) { scale = 1; plainScale = step; }
        } else {
          cost = small.cliques[metric]; second = small.seconds[metric]; base = small.cliqueFirst[f];
        }
      }
      const byClique = records.words[4 * iu + 3] === 1;
      const slot = level === undefined || byClique ? -1
        : forward ? slotIn(level.entryFirst, level.entryNode, c, u) : slotIn(level.exitFirst, level.exitNode, c, u);
      if (level === undefined || (!byClique && slot < 0)) span = 0; // walked, or reached by a link at a node that is no entry: every link
      for (let k = firstIn[u], end = firstIn[u + 1]; k < end; k++) {
        const e = forward ? k : inEdge![k];
        const v = forward ? edgeHead[e] : g.edgeTailOf(e);
        if ((nodeCell[v] - lo) >>> 0 < span) continue; // inside the closed cell: crossed by the clique below
        if (within >= 0 && (withinSmall ? nodeCell[v] !== within : bigOf[nodeCell[v]] !== within)) continue;
        if (ownOnly && ownBig[bigOf[nodeCell[v]]] !== stamp) continue;
        const road = edgeRoad[e];
        if (blocked[road] !== 0) continue;
        const w = steps[road] * step;
        const priced = classes === undefined ? 0 : perMetre![classes[road]] * (lengthCm[road] * COST_STEP.distance);
        relax(v, key + w + priced, su + otherSteps[road] * otherStep, pu + w, 0);
      }
      if (slot < 0) continue;
      const lv = level!;
      const x0 = lv.exitFirst[c], X = lv.exitFirst[c + 1] - x0;
      if (forward) {
        const row = base + slot * X;
        for (let j = 0; j < X; j++) {
          const w = cost![row + j];
          if (w === UNREACHABLE || w === Infinity) continue;
          relax(lv.exitNode[x0 + j], key + w * scale, su + second![row + j] * secondScale, pu + (plain ? plain[row + j] * plainScale : w * scale), 1);
        }
      } else {
        const e0 = lv.entryFirst[c], E = lv.entryFirst[c + 1] - e0;
        for (let i = 0; i < E; i++) {
          const at = base + i * X + slot;
          const w = cost![at];
          if (w === UNREACHABLE || w === Infinity) continue;
          relax(lv.entryNode[e0 + i], key + w * scale, su + second![at] * secondScale, pu + (plain ? plain[at] * plainScale : w * scale), 1);
        }
      }
    }
  }

}


/**
 * A vehicle class's cliques for one metric (OverlayManyToMany.fixedCliques): per level, its cells
 * (ascending), where each one's clique starts, its costs in whole steps of the metric and the other
 * metric's steps along the same paths (UNREACHABLE where none); `priced` ones' costs charged, in
 * real units (Infinity where none), with the plain cost of the same paths in whole steps.
 */
export interface FixedCliques {
  metric: Metric;
  priced: boolean;
  small: FixedLevelCliques;
  big: FixedLevelCliques;
}

interface FixedLevelCliques {
  cells: Uint32Array;
  first: Float64Array;
  cost: Uint32Array | Float64Array;
  second: Uint32Array | Float64Array;
  plain?: Uint32Array;
}

/**
 * A run's closed cells without a penalty (close()), kept so a later run around the same roads
 * crosses them without customizing again: what they were made for (metric, the listed roads in
 * order, the road times, a class's fixed cliques), the small and big cells marked, those customized
 * (in slot order) and their cliques.
 */
interface Closing {
  metric: Metric;
  roads: Uint32Array;
  millis: Uint32Array;
  fixed?: FixedCliques;
  cells: number[];
  bigs: number[];
  customized: number[];
  customizedBigs: number[];
  custom: Cliques;
  bigCustom: Cliques;
}

/** Cliques customized for one run, in real units: per listed cell, where its block starts; cost (penalty included), second value and plain cost. */
interface Cliques {
  first: Float64Array;
  cost: Float64Array;
  second: Float64Array;
  plain: Float64Array;
}

function emptyCliques(): Cliques {
  return { first: new Float64Array(1), cost: new Float64Array(0), second: new Float64Array(0), plain: new Float64Array(0) };
}
