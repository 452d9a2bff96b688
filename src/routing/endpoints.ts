import { RoadFlag } from '../graph/carProfile.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { Snap } from '../graph/SnapIndex.js';
import { junctionNodes, roadEntryNodes, roadExitNode } from '../graph/junctionNodes.js';
import type { Endpoint, Penalty } from './PathSearch.js';

/** Cost of `metres` of road r under a metric (duration uses the road's own speed), plus any penalty. */
export function partialCost(graph: RoadGraph, road: number, metres: number, metric: Metric, penalty?: Penalty): number {
  const base = metric === 'distance' ? metres : metres / (graph.roadSpeedKmh[road] / 3.6);
  const penaltyClass = penalty?.roads[road];
  return penaltyClass ? base + penalty!.costPerMetre[penaltyClass] * metres : base;
}

/**
 * A snap exactly on a road's end is at that junction: a route may leave or reach it by any road
 * there, whatever the snapped road's direction. Returns that node, or null.
 */
function junctionAt(graph: RoadGraph, snap: Snap): { node: number; reversed: boolean } | null {
  const r = snap.road;
  if (snap.segment === 0 && snap.t === 0) return { node: graph.roadFrom[r], reversed: true };
  if (snap.segment === graph.roadPointCount(r) - 2 && snap.t === 1) return { node: graph.roadTo[r], reversed: false };
  return null;
}

/** The nodes a route may leave a snapped start point towards, with the cost to reach each. */
export function sourceEndpoints(graph: RoadGraph, snap: Snap, metric: Metric, penalty?: Penalty): Endpoint[] {
  const at = junctionAt(graph, snap);
  if (at) return [{ node: at.node, cost: 0, reversed: at.reversed }];
  const r = snap.road;
  const flags = graph.roadFlags[r];
  const out: Endpoint[] = [];
  // Driving off the road reaches the copy of its end junction that knows where the car came from.
  if (flags & RoadFlag.FORWARD) {
    out.push({ node: roadExitNode(graph, r, false), cost: partialCost(graph, r, graph.roadMetres(r) - snap.offset, metric, penalty), reversed: false });
  }
  if (flags & RoadFlag.BACKWARD) {
    out.push({ node: roadExitNode(graph, r, true), cost: partialCost(graph, r, snap.offset, metric, penalty), reversed: true });
  }
  return out;
}

/** The nodes a route may arrive at a snapped end point from, with the cost from each to the point. */
export function targetEndpoints(graph: RoadGraph, snap: Snap, metric: Metric, penalty?: Penalty): Endpoint[] {
  // A junction split for turn restrictions is reached at any of its copies; a road is entered
  // from those copies whose turns allow it.
  const at = junctionAt(graph, snap);
  if (at) return junctionNodes(graph, at.node).map((node) => ({ node, cost: 0, reversed: !at.reversed }));
  const r = snap.road;
  const flags = graph.roadFlags[r];
  const out: Endpoint[] = [];
  if (flags & RoadFlag.FORWARD) {
    const cost = partialCost(graph, r, snap.offset, metric, penalty);
    for (const node of roadEntryNodes(graph, r, false)) out.push({ node, cost, reversed: false });
  }
  if (flags & RoadFlag.BACKWARD) {
    const cost = partialCost(graph, r, graph.roadMetres(r) - snap.offset, metric, penalty);
    for (const node of roadEntryNodes(graph, r, true)) out.push({ node, cost, reversed: true });
  }
  return out;
}

/**
 * Cost of driving straight from one snapped point to another along their shared road, or
 * Infinity when they are on different roads or the road's direction forbids it.
 * Returns the direction too (reversed = against the shape).
 */
export function directCost(
  graph: RoadGraph, from: Snap, to: Snap, metric: Metric, penalty?: Penalty,
): { cost: number; reversed: boolean } {
  if (from.road !== to.road) return { cost: Infinity, reversed: false };
  if (to.offset === from.offset) return { cost: 0, reversed: false };
  const flags = graph.roadFlags[from.road];
  const ahead = to.offset >= from.offset;
  if (ahead && flags & RoadFlag.FORWARD) {
    return { cost: partialCost(graph, from.road, to.offset - from.offset, metric, penalty), reversed: false };
  }
  if (!ahead && flags & RoadFlag.BACKWARD) {
    return { cost: partialCost(graph, from.road, from.offset - to.offset, metric, penalty), reversed: true };
  }
  return { cost: Infinity, reversed: false };
}
