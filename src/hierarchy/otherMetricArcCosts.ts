import { ROAD_COST_UNIT, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { arcHead, arcTail, hierarchyNodeCount, shortcutHalves, type ContractionHierarchy } from './ContractionHierarchy.js';

const cache = new WeakMap<ContractionHierarchy, Float64Array>();

/** The metric a hierarchy does not minimise: distance for duration, duration for distance. */
export function otherMetric(metric: Metric): Metric {
  return metric === 'distance' ? 'duration' : 'distance';
}

/**
 * Per arc of `ch`, its cost in the other metric (seconds for a distance hierarchy, metres for a
 * duration one): an original edge's own, a shortcut's the sum of its two children. Searches that
 * minimise one metric carry this beside it, so a matrix gets both values of each optimal path
 * without unpacking it. Computed once per hierarchy, O(arcs), and cached.
 */
export function otherMetricArcCosts(graph: RoadGraph, ch: ContractionHierarchy): Float64Array {
  const known = cache.get(ch);
  if (known) return known;
  const { arcMiddle, upFirst, downFirst } = ch;
  const roadCost = graph.roadCost(otherMetric(ch.metric)), unit = ROAD_COST_UNIT[otherMetric(ch.metric)], edgeRoad = graph.edgeRoad;
  const arcs = arcMiddle.length;
  const out = new Float64Array(arcs);
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
            out[x] = roadCost[edgeRoad[~m]] * unit;
            done[x] = 1;
            stack.length -= 2;
            continue;
          }
          shortcutHalves(ch, arcTail(ch, x, lowEnd), arcHead(ch, x, lowEnd), m, halves);
          const h0 = halves[0], h1 = halves[1];
          if (!done[h0]) { stack.push(h0, m); continue; }
          if (!done[h1]) { stack.push(h1, m); continue; }
          out[x] = out[h0] + out[h1];
          done[x] = 1;
          stack.length -= 2;
        }
      }
    }
  }
  cache.set(ch, out);
  return out;
}
