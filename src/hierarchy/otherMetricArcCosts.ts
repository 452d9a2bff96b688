import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { ContractionHierarchy } from './ContractionHierarchy.js';

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
  const { arcFirst, arcSecond } = ch;
  const edgeCost = graph.edgeCost(otherMetric(ch.metric));
  const arcs = arcFirst.length;
  const out = new Float64Array(arcs);
  const done = new Uint8Array(arcs);
  const stack: number[] = [];
  for (let a = 0; a < arcs; a++) {
    if (done[a]) continue;
    // Children before parents: a shortcut's children may have any arc id.
    stack.push(a);
    while (stack.length > 0) {
      const x = stack[stack.length - 1];
      const second = arcSecond[x];
      if (second < 0) {
        out[x] = edgeCost[arcFirst[x]];
        done[x] = 1;
        stack.pop();
        continue;
      }
      const first = arcFirst[x];
      if (!done[first]) { stack.push(first); continue; }
      if (!done[second]) { stack.push(second); continue; }
      out[x] = out[first] + out[second];
      done[x] = 1;
      stack.pop();
    }
  }
  cache.set(ch, out);
  return out;
}
