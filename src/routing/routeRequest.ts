import type { Metric } from '../graph/RoadGraph.js';
import type { LatLon } from '../geo/coordinates.js';
import type { Snap } from '../graph/SnapIndex.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { AvoidanceBehavior, AvoidanceType, AvoidedTypeDriven } from './avoidance.js';
import type { ZoneWait } from './RoadSchedule.js';
import type { RouteStep } from './steps.js';
import type { StepLanguage } from './stepTexts.js';
import type { Vehicle, VehicleRoads } from './vehicle.js';

/** Maplink's calculation modes: THE_FASTEST minimises seconds, THE_SHORTEST metres. */
export type CalculationMode = 'THE_FASTEST' | 'THE_SHORTEST';
export const CALCULATION_MODES: readonly CalculationMode[] = ['THE_FASTEST', 'THE_SHORTEST'];

export function metricOf(mode: CalculationMode): Metric {
  return mode === 'THE_SHORTEST' ? 'distance' : 'duration';
}

export interface RouteRequest {
  /** Ordered stops, at least two. */
  points: LatLon[];
  /** Default THE_FASTEST. */
  calculationMode?: CalculationMode;
  /** Per road, 1 when the road must never be used (unlike zones, no stop may make it usable). */
  blockedRoads?: Uint8Array;
  /** Names for the points in errors (default "points[i]"). */
  pointLabels?: string[];
  /** Restriction zones to avoid (their blocked roads combine). */
  zones?: CalculatedZone[];
  /** Road types to avoid (Maplink's avoidanceTypes); they combine with the zones. */
  avoidanceTypes?: AvoidanceType[];
  /** How hard to avoid them (default FAIL; see AvoidanceBehavior). */
  avoidanceBehavior?: AvoidanceBehavior;
  /** The vehicle the route must be legal for (vehicleOf); default a car, which the graph's roads all admit. */
  vehicle?: Vehicle;
  /** Turn-by-turn steps on every leg (`leg.steps`), worded in the language given (true: English). */
  steps?: boolean | StepLanguage;
  /**
   * When the route leaves: epoch milliseconds, an ISO-8601 date-time or a Date (default now). Zones
   * with a schedule close their roads while active (RoadSchedule); the route may wait for them.
   */
  departure?: number | string | Date;
}

/**
 * The per-request road masks of Router.masks: `zone` the roads a stop may make usable (the zones',
 * and a vehicle's destination-only roads), `hard` those never used (a caller's mask, a vehicle's
 * forbidden roads), `all` their union; each undefined when empty.
 */
export interface RoadMasks {
  zone?: Uint8Array;
  hard?: Uint8Array;
  all?: Uint8Array;
  /** Lists whose union is exactly `zone`: each zone's roads, then the vehicle's destination-only roads. */
  softLists: readonly ArrayLike<number>[];
  /** Lists whose union is exactly `hard`, when known (undefined under a caller's own mask). */
  hardLists?: readonly ArrayLike<number>[];
  /** The vehicle's roads, when the request has one. */
  vehicle?: VehicleRoads;
}

/** A zone a leg had to enter because a stop is inside it or reachable only through it. */
export interface ZoneEntered {
  name: string;
  /** Metres of the leg's geometry inside the zone's polygons. */
  metresInside: number;
}

export interface RouteLeg {
  /** Metres. */
  distance: number;
  /** Seconds. */
  duration: number;
  /** km/h (0 for a zero-length leg). */
  averageSpeed: number;
  /**
   * Road geometry from the snapped start to the snapped end: latitude, longitude interleaved
   * (point i at 2i, 2i + 1), as it crosses threads and feeds the encodings without boxing.
   */
  coordinates: Float64Array;
  /** The same points as LatLon objects, made on first read (a country-long leg has thousands). */
  readonly points: LatLon[];
  /** Directed edge ids driven in full, in order. */
  edges: number[];
  from: Snap;
  to: Snap;
  /** Present when the leg had to enter restriction zones (a stop inside or behind one). */
  zonesEntered?: ZoneEntered[];
  /** Present when the leg drove roads of avoided types (STRONG could not avoid them, RELAXED chose to). */
  avoidedTypesDriven?: AvoidedTypeDriven[];
  /** The driver's instructions, when the request asked for steps (legSteps). */
  steps?: RouteStep[];
  /** Where the leg waits for scheduled zones to open (their hours to end) (its duration includes them). */
  waits?: ZoneWait[];
}

export interface Route {
  distance: number;
  duration: number;
  averageSpeed: number;
  legs: RouteLeg[];
  /** The vehicle the route is legal for, when the request named one. */
  vehicle?: Vehicle;
  /** The departure (ISO-8601), when the request gave one or named scheduled zones. */
  departure?: string;
}
