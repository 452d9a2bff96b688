import type { Metric } from '../graph/RoadGraph.js';
import type { Endpoint } from './endpoints.js';

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
  /** Roads that may be used at an extra cost per metre driven on them (soft avoidance). */
  penalty?: Penalty;
}

/** Soft avoidance: each metre on a penalised road adds `costPerMetre` to the path cost. */
export interface Penalty {
  roads: Uint8Array;
  costPerMetre: number;
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
}
