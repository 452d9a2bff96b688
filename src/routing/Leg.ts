import type { LatLon } from '../geo/coordinates.js';
import { latLonPoints } from '../geo/coordinates.js';
import type { Snap } from '../graph/SnapIndex.js';
import type { AvoidedTypeDriven } from './avoidance.js';
import type { ZoneWait } from './RoadSchedule.js';
import type { RouteLeg, ZoneEntered } from './routeRequest.js';
import type { RouteStep } from './steps.js';

export const NO_EDGE_ENDS = new Int32Array(0);

/** A RouteLeg whose LatLon points are made from its coordinates when first read. */
export class Leg implements RouteLeg {
  readonly averageSpeed: number;
  declare zonesEntered?: ZoneEntered[];
  declare avoidedTypesDriven?: AvoidedTypeDriven[];
  declare steps?: RouteStep[];
  declare waits?: ZoneWait[];
  #points?: LatLon[];
  /** The points of `edges` in `coordinates`: from edgesFirst (the first edge's tail) to edgesLast; the rest are the start and end roads' parts. */
  readonly #edgePoints: [number, number];
  /** Whether the start road is driven against its shape, and the end road (StepLeg). */
  readonly #reversed: [boolean, boolean];
  readonly #direct: boolean;

  readonly #edgeEnds: Int32Array;

  constructor(
    readonly distance: number, readonly duration: number, readonly coordinates: Float64Array,
    readonly edges: number[], edgeEnds: Int32Array, readonly from: Snap, readonly to: Snap, edgesFirst: number, edgesLast: number,
    startReversed: boolean, endReversed: boolean, direct: boolean,
  ) {
    this.averageSpeed = speedKmh(distance, duration);
    this.#edgeEnds = edgeEnds;
    this.#edgePoints = [edgesFirst, edgesLast];
    this.#reversed = [startReversed, endReversed];
    this.#direct = direct;
  }

  /** Whether the leg stays on one road from stop to stop (StepLeg). */
  get direct(): boolean {
    return this.#direct;
  }

  get edgePoints(): readonly [number, number] {
    return this.#edgePoints;
  }

  /** Per edge, the point of `coordinates` its head is (StepLeg), in a route made with steps; empty otherwise. */
  get edgeEnds(): Int32Array {
    return this.#edgeEnds;
  }

  get edgesFirst(): number {
    return this.#edgePoints[0];
  }

  get edgesLast(): number {
    return this.#edgePoints[1];
  }

  get startReversed(): boolean {
    return this.#reversed[0];
  }

  get endReversed(): boolean {
    return this.#reversed[1];
  }

  get points(): LatLon[] {
    return (this.#points ??= latLonPoints(this.coordinates));
  }

  /** JSON has the points as objects (a typed array would print as an object of indices). */
  toJSON(): Omit<RouteLeg, 'coordinates'> {
    const { coordinates: _, ...fields } = this;
    return { ...fields, points: this.points };
  }
}

/**
 * Adds each of the leg's waits to the step it happens in (the one whose stretch leaves the point
 * where the vehicle waits), so the steps' durations still sum to the leg's.
 */
export function waitInSteps(steps: RouteStep[], leg: Leg): void {
  const c = leg.coordinates;
  for (const w of leg.waits!) {
    let p = leg.edgesFirst;
    while (p < leg.edgesLast && (c[2 * p] !== w.latitude || c[2 * p + 1] !== w.longitude)) p++;
    const step = steps.find((s) => s.first <= p && p < s.last) ?? steps[steps.length - 1];
    step.duration += w.seconds;
  }
}

/** km/h from metres and seconds; 0 when no time passes. */
export function speedKmh(metres: number, seconds: number): number {
  return seconds > 0 ? (metres / seconds) * 3.6 : 0;
}
