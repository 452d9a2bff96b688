import { DetourError, ErrorCode } from '../errors.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import { arcHead, arcTail, hierarchyNodeCount, shortcutHalves, type ContractionHierarchy } from './ContractionHierarchy.js';

const cache = new WeakMap<ContractionHierarchy, Uint32Array>();

/** The metric a hierarchy does not minimise: distance for duration, duration for distance. */
export function otherMetric(metric: Metric): Metric {
  return metric === 'distance' ? 'duration' : 'distance';
}

/**
 * Per arc of `ch`, its cost in the other metric in that metric's road cost units (whole
 * milliseconds for a distance hierarchy, whole centimetres for a duration one: ROAD_COST_UNIT):
 * an original edge's own, a shortcut's the sum of its two children, exact in 32 bits (half the
 * bytes of a float64 per arc). Searches that minimise one metric carry this beside it, so a matrix
 * gets both values of each optimal path without unpacking it. Computed once per hierarchy,
 * O(arcs), and cached.
 */
export function otherMetricArcCosts(graph: RoadGraph, ch: ContractionHierarchy): Uint32Array {
  const known = cache.get(ch);
  if (known) return known;
  const { arcMiddle, upFirst, downFirst } = ch;
  const roadCost = graph.roadCost(otherMetric(ch.metric)), edgeRoad = graph.edgeRoad;
  const arcs = arcMiddle.length;
  const out = new Uint32Array(arcs);
  const done = new Uint8Array(arcs);
  const stack: number[] = [];
  const halves = new Int32Array(2);
  for (let low = 0, n = hierarchyNodeCount(ch); low < n; low++) {
    for (const first of [upFirst, downFirst]) {
      for (let a = first[low]; a < first[low + 1]; a++) {
        if (done[a]) continue;
        // Children before parents; a shortcut's halves lie at its middle node (their lower end).
        stack.push(a, low);
        while (stack.length > 0) {
          const x = stack[stack.length - 2], lowEnd = stack[stack.length - 1];
          const m = arcMiddle[x];
          if (m < 0) {
            out[x] = roadCost[edgeRoad[~m]];
            done[x] = 1;
            stack.length -= 2;
            continue;
          }
          shortcutHalves(ch, arcTail(ch, x, lowEnd), arcHead(ch, x, lowEnd), m, halves);
          const h0 = halves[0], h1 = halves[1];
          if (!done[h0]) { stack.push(h0, m); continue; }
          if (!done[h1]) { stack.push(h1, m); continue; }
          const sum = out[h0] + out[h1];
          if (sum > 0xffffffff) {
            throw new DetourError(ErrorCode.INVALID_INPUT, `a shortcut of the ${ch.metric} hierarchy is longer in ${otherMetric(ch.metric)} than 32 bits of road cost units hold`);
          }
          out[x] = sum;
          done[x] = 1;
          stack.length -= 2;
        }
      }
    }
  }
  cache.set(ch, out);
  return out;
}
