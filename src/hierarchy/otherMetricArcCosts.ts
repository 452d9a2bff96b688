import { DetourError, ErrorCode } from '../errors.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { arcHead, arcTail, hierarchyNodeCount, shortcutHalves, type ContractionHierarchy } from './ContractionHierarchy.js';

/** The metric a hierarchy does not minimise: distance for duration, duration for distance. */
export function otherMetric(metric: Metric): Metric {
  return metric === 'distance' ? 'duration' : 'distance';
}

/**
 * Per arc of a hierarchy, its cost in the other metric in that metric's road cost units (whole
 * milliseconds for a distance hierarchy, whole centimetres for a duration one: ROAD_COST_UNIT),
 * exact in 32 bits. An original edge's is its road's (read from the graph's per-road costs); a
 * shortcut's, the sum of its two children, is stored, in the shortcuts' own order: a bit per arc
 * says which arcs are shortcuts and a count per 32 arcs ranks them (1 bit per arc and 4 bytes per
 * shortcut, where a word per arc held twice the bytes: about half the arcs are shortcuts).
 * Searches that minimise one metric carry this beside it, so a matrix gets both values of each
 * optimal path without unpacking it.
 */
export interface OtherMetricArcCosts {
  readonly arcMiddle: Int32Array;
  readonly edgeRoad: Uint32Array;
  /** The graph's per-road costs in the other metric (RoadGraph.roadCost). */
  readonly roadCost: Uint32Array;
  /** Bit (a & 31) of word a >>> 5: arc a is a shortcut. */
  readonly shortcutBits: Uint32Array;
  /** Shortcuts among arcs 0 .. 32w - 1, per word w. */
  readonly shortcutsBefore: Uint32Array;
  /** Per shortcut, in arc order, its cost in the other metric. */
  readonly shortcutCost: Uint32Array;
}

/** Set bits in the 32-bit word w. */
export function popcount32(w: number): number {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The place of shortcut arc a among the shortcuts (shortcutCost's index). */
function shortcutSlot(o: Pick<OtherMetricArcCosts, 'shortcutBits' | 'shortcutsBefore'>, a: number): number {
  return o.shortcutsBefore[a >>> 5] + popcount32(o.shortcutBits[a >>> 5] & ((1 << (a & 31)) - 1));
}

/** Arc a's cost in the other metric, in its road cost units. */
export function otherArcCost(o: OtherMetricArcCosts, a: number): number {
  const m = o.arcMiddle[a];
  return m < 0 ? o.roadCost[o.edgeRoad[~m]] : o.shortcutCost[shortcutSlot(o, a)];
}

const cache = new WeakMap<ContractionHierarchy, OtherMetricArcCosts>();

/**
 * The other metric's arc costs of `ch` on `graph` (whose per-road costs its original arcs read:
 * a vehicle's times on a view with them). Computed once per hierarchy, O(arcs), and cached.
 */
export function otherMetricArcCosts(graph: RoadGraph, ch: ContractionHierarchy): OtherMetricArcCosts {
  const known = cache.get(ch);
  if (known) return known;
  const { arcMiddle, upFirst, downFirst } = ch;
  const roadCost = graph.roadCost(otherMetric(ch.metric)), edgeRoad = graph.edgeRoad;
  const arcs = arcMiddle.length, words = (arcs + 31) >>> 5;
  const shortcutBits = new Uint32Array(words), shortcutsBefore = new Uint32Array(words);
  let shortcuts = 0;
  for (let w = 0; w < words; w++) {
    shortcutsBefore[w] = shortcuts;
    let bits = 0;
    for (let a = w << 5, end = Math.min(arcs, (w + 1) << 5); a < end; a++) if (arcMiddle[a] >= 0) bits |= 1 << (a & 31);
    shortcutBits[w] = bits;
    shortcuts += popcount32(bits);
  }
  const made: OtherMetricArcCosts = { arcMiddle, edgeRoad, roadCost, shortcutBits, shortcutsBefore, shortcutCost: new Uint32Array(shortcuts) };
  const out = made.shortcutCost;
  const slot = (a: number) => shortcutSlot(made, a);
  const done = new Uint8Array(shortcuts);
  const stack: number[] = [];
  const halves = new Int32Array(2);
  for (let low = 0, n = hierarchyNodeCount(ch); low < n; low++) {
    for (const first of [upFirst, downFirst]) {
      for (let a = first[low]; a < first[low + 1]; a++) {
        if (arcMiddle[a] < 0 || done[slot(a)]) continue;
        // Children before parents; a shortcut's halves lie at its middle node (their lower end).
        stack.push(a, low);
        while (stack.length > 0) {
          const x = stack[stack.length - 2], lowEnd = stack[stack.length - 1];
          const m = arcMiddle[x];
          shortcutHalves(ch, arcTail(ch, x, lowEnd), arcHead(ch, x, lowEnd), m, halves);
          const h0 = halves[0], h1 = halves[1];
          if (arcMiddle[h0] >= 0 && !done[slot(h0)]) { stack.push(h0, m); continue; }
          if (arcMiddle[h1] >= 0 && !done[slot(h1)]) { stack.push(h1, m); continue; }
          const sum = otherArcCost(made, h0) + otherArcCost(made, h1);
          if (sum > 0xffffffff) {
            throw new DetourError(ErrorCode.INVALID_INPUT, `a shortcut of the ${ch.metric} hierarchy is longer in ${otherMetric(ch.metric)} than 32 bits of road cost units hold`);
          }
          out[slot(x)] = sum;
          done[slot(x)] = 1;
          stack.length -= 2;
        }
      }
    }
  }
  cache.set(ch, made);
  return made;
}
