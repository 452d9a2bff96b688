import { DetourError, ErrorCode } from '../errors.js';
import { RoadFlag } from '../graph/carProfile.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { Snap } from '../graph/SnapIndex.js';

/** Maplink's avoidance types that detour's graph knows (FRONTIERS needs country borders it does not have). */
export type AvoidanceType = 'TUNNELS' | 'BRIDGES' | 'FERRIES' | 'TOLL_ROADS' | 'TOLL_GATES' | 'UNPAVED';

/** The road flag each avoidance type avoids. */
export const AVOIDANCE_FLAGS: Readonly<Record<AvoidanceType, number>> = {
  TUNNELS: RoadFlag.TUNNEL,
  BRIDGES: RoadFlag.BRIDGE,
  FERRIES: RoadFlag.FERRY,
  TOLL_ROADS: RoadFlag.TOLL,
  TOLL_GATES: RoadFlag.TOLL_GATE,
  UNPAVED: RoadFlag.UNPAVED,
};
export const AVOIDANCE_TYPES = Object.keys(AVOIDANCE_FLAGS) as AvoidanceType[];

/**
 * FAIL: never drive them; a leg that cannot avoid them is an error (AVOIDANCE_IMPOSSIBLE).
 * STRONG: drive the fewest metres of them that any route can, and report those metres.
 * RELAXED: each metre on them costs RELAXED_EXTRA_PER_METRE more; report the metres driven.
 */
export type AvoidanceBehavior = 'FAIL' | 'STRONG' | 'RELAXED';
export const AVOIDANCE_BEHAVIORS: readonly AvoidanceBehavior[] = ['FAIL', 'STRONG', 'RELAXED'];

/**
 * RELAXED: what a metre on an avoided road adds to the cost, per metric: 2 m (THE_SHORTEST) or
 * 0.1 s (THE_FASTEST). A detour is taken when it adds less than that per metre avoided (at most
 * three times the avoided stretch's length, or a tenth of a second per metre of it).
 */
export const RELAXED_EXTRA_PER_METRE: Readonly<Record<Metric, number>> = { distance: 2, duration: 0.1 };

/**
 * STRONG: the cost per metre on an avoided road; large enough that any metre avoided outweighs
 * any realistic detour (10,000 s or 10 km per metre), small enough that a restriction zone's metre
 * (ZONE_COST_PER_METRE times this) still outweighs every avoided metre of a route.
 */
export const STRONG_COST_PER_METRE = 1e4;

/** What a route request asks to avoid, validated. */
export interface Avoidance {
  types: AvoidanceType[];
  /** RoadFlag bits of the types (0 when there is nothing to avoid). */
  flags: number;
  behavior: AvoidanceBehavior;
}

/** Metres a leg drove on one avoided type. */
export interface AvoidedTypeDriven {
  type: AvoidanceType;
  metres: number;
}

/**
 * Checks a request's avoidanceTypes / avoidanceBehavior (INVALID_AVOIDANCE with the field named,
 * AVOIDANCE_TYPE_UNSUPPORTED for FRONTIERS). Duplicates are ignored; default behaviour FAIL.
 */
export function parseAvoidance(types: unknown, behavior: unknown, field = 'avoidanceTypes'): Avoidance {
  if (types !== undefined && !Array.isArray(types)) {
    throw new DetourError(ErrorCode.INVALID_AVOIDANCE, `${field} must be an array of ${AVOIDANCE_TYPES.join(', ')}`, { field });
  }
  const list: AvoidanceType[] = [];
  for (const [i, t] of (types ?? []).entries()) {
    if (t === 'FRONTIERS') {
      throw new DetourError(
        ErrorCode.AVOIDANCE_TYPE_UNSUPPORTED,
        `${field}[${i}]: FRONTIERS cannot be avoided: the graph does not know country borders`,
        { field: `${field}[${i}]` },
      );
    }
    if (typeof t !== 'string' || !(t in AVOIDANCE_FLAGS)) {
      throw new DetourError(
        ErrorCode.INVALID_AVOIDANCE,
        `${field}[${i}] must be one of ${AVOIDANCE_TYPES.join(', ')}, got ${JSON.stringify(t)}`,
        { field: `${field}[${i}]` },
      );
    }
    if (!list.includes(t as AvoidanceType)) list.push(t as AvoidanceType);
  }
  const b = behavior ?? 'FAIL';
  if (!AVOIDANCE_BEHAVIORS.includes(b as AvoidanceBehavior)) {
    throw new DetourError(
      ErrorCode.INVALID_AVOIDANCE,
      `avoidanceBehavior must be one of ${AVOIDANCE_BEHAVIORS.join(', ')}, got ${JSON.stringify(behavior)}`,
      { field: 'avoidanceBehavior' },
    );
  }
  return { types: list, flags: list.reduce((f, t) => f | AVOIDANCE_FLAGS[t], 0), behavior: b as AvoidanceBehavior };
}

/**
 * The roads of each flag bit, listed once per graph (one pass over the roads), so a request
 * marks its avoided roads in O(roads of its types), not O(all roads).
 */
export class FlaggedRoads {
  private readonly byBit = new Map<number, Uint32Array>();

  constructor(private readonly graph: RoadGraph) {}

  /** Roads carrying flag bit `bit` (a single RoadFlag value). */
  roads(bit: number): Uint32Array {
    let list = this.byBit.get(bit);
    if (!list) {
      const flags = this.graph.roadFlags;
      let n = 0;
      for (let r = 0; r < flags.length; r++) if (flags[r] & bit) n++;
      list = new Uint32Array(n);
      n = 0;
      for (let r = 0; r < flags.length; r++) if (flags[r] & bit) list[n++] = r;
      this.byBit.set(bit, list);
    }
    return list;
  }

  /** Sets `value` in mask for every road of the avoidance's types. */
  mark(mask: Uint8Array, avoidance: Avoidance, value: number): void {
    for (const t of avoidance.types) {
      const list = this.roads(AVOIDANCE_FLAGS[t]);
      for (let i = 0; i < list.length; i++) mask[list[i]] |= value;
    }
  }
}

/**
 * Metres a leg drove on each avoided type: its full edges plus the partial roads at its ends
 * (or the stretch between two stops on one road). Types it never drove are left out.
 */
export function metresOnAvoided(
  graph: RoadGraph, avoidance: Avoidance, edges: readonly number[], from: Snap, to: Snap, direct: boolean, startMetres: number, endMetres: number,
): AvoidedTypeDriven[] {
  const byType = new Map<AvoidanceType, number>();
  const add = (road: number, metres: number) => {
    const f = graph.roadFlags[road];
    if (!(f & avoidance.flags) || metres <= 0) return;
    for (const t of avoidance.types) if (f & AVOIDANCE_FLAGS[t]) byType.set(t, (byType.get(t) ?? 0) + metres);
  };
  if (direct) {
    add(from.road, Math.abs(to.offset - from.offset));
  } else {
    add(from.road, startMetres);
    for (const e of edges) add(graph.edgeRoad[e], graph.roadMetres(graph.edgeRoad[e]));
    add(to.road, endMetres);
  }
  return avoidance.types.filter((t) => byType.has(t)).map((type) => ({ type, metres: byType.get(type)! }));
}
