import { DetourError, ErrorCode } from '../errors.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { softCostPerMetre } from '../zones/Zone.js';
import { ZONE_COST_PER_METRE, type BlockedCellCliques, type Penalty } from './PathSearch.js';
import type { VehicleRoads } from './vehicle.js';
import type { ZoneSetCliques } from './ZoneCliques.js';

/** ZONE_NOT_READY / ZONE_NOT_USABLE for a zone a route cannot use (still calculated, failed, of another graph). */
export function checkUsable(zones: readonly CalculatedZone[], roadCount: number): void {
  for (const z of zones) {
    if (z.status.name === 'IN_CALCULATION') {
      throw new DetourError(ErrorCode.ZONE_NOT_READY, `restriction zone ${JSON.stringify(z.zone.name)} is still being calculated; try again shortly`, { zone: z.zone.name });
    }
    if (z.status.name === 'CALCULATION_ERROR' || z.roadCount !== roadCount) {
      throw new DetourError(ErrorCode.ZONE_NOT_USABLE, `restriction zone ${JSON.stringify(z.zone.name)} cannot be used: ${z.status.description}`, { zone: z.zone.name });
    }
  }
}

/**
 * The lists a prepared vehicle's leg searches with: its closed roads crossed by its cliques, small
 * and big. The zones' roads are walked, so their cells open, small and big: a big cell the
 * vehicle's big cliques cross then holds no zone road, and a small one its cliques cross none
 * either (their cliques know nothing of the zones, nor the zones' of the vehicle's roads).
 */
export function preparedVehicleLists(zones: readonly CalculatedZone[], prepared: NonNullable<VehicleRoads['prepared']>): {
  lists: ArrayLike<number>[]; cliques: (BlockedCellCliques | undefined)[]; cells: ZoneSetCliques;
} {
  return {
    lists: [...zones.map((z) => z.roads), prepared.closed],
    cliques: [...zones.map(() => undefined), prepared.cliques],
    cells: { shared: [], big: prepared.bigCliques },
  };
}

/** A request's zones: HARD ones (closed) and SOFT ones (a cost per metre). */
export function splitZones(zones: CalculatedZone[]): { hard: CalculatedZone[]; soft: CalculatedZone[] } {
  if (zones.every((z) => softCostPerMetre(z.zone) === undefined)) return { hard: zones, soft: [] };
  return { hard: zones.filter((z) => softCostPerMetre(z.zone) === undefined), soft: zones.filter((z) => softCostPerMetre(z.zone) !== undefined) };
}

/**
 * A request's SOFT zones as a penalty: each road of them costs the sum of its zones' costs per
 * metre (a penalty class per distinct sum), filled in a scratch mask in O(their roads). withHard
 * adds ZONE_COST_PER_METRE on the HARD zones' roads for a leg that must enter them.
 */
export class SoftZones {
  readonly penalty: Penalty;
  private readonly costs: number[] = [0];
  private readonly classOf = new Map<number, number>([[0, 0]]);
  private hardClasses?: Uint8Array;

  constructor(readonly zones: CalculatedZone[], private readonly take: () => Uint8Array) {
    const roads = take();
    for (const z of zones) {
      const cost = softCostPerMetre(z.zone)!;
      for (let i = 0; i < z.roads.length; i++) roads[z.roads[i]] = this.classFor(this.costs[roads[z.roads[i]]] + cost);
    }
    this.penalty = { roads, costPerMetre: Float64Array.from(this.costs), roadLists: zones.map((z) => z.roads) };
  }

  /** The penalty with the HARD zones' roads (`hardLists`) charged ZONE_COST_PER_METRE on top. */
  withHard(hardLists: readonly ArrayLike<number>[], unavoidable: boolean): Penalty {
    const roads = (this.hardClasses ??= this.take());
    roads.set(this.penalty.roads);
    for (const list of hardLists) for (let i = 0; i < list.length; i++) roads[list[i]] = this.classFor(this.costs[this.penalty.roads[list[i]]] + ZONE_COST_PER_METRE);
    return { roads, costPerMetre: Float64Array.from(this.costs), unavoidable, roadLists: [...this.penalty.roadLists!, ...hardLists] };
  }

  private classFor(cost: number): number {
    let c = this.classOf.get(cost);
    if (c === undefined) {
      if (this.costs.length > 255) throw new DetourError(ErrorCode.INVALID_INPUT, 'the SOFT zones overlap in more than 255 distinct costs per metre; name fewer of them');
      c = this.costs.length;
      this.costs.push(cost);
      this.classOf.set(cost, c);
    }
    return c;
  }

  /** The scratch masks, cleared (the zones' roads, and the HARD roads withHard marked). */
  release(hardLists: readonly ArrayLike<number>[]): Uint8Array[] {
    const masks = [this.penalty.roads, ...(this.hardClasses ? [this.hardClasses] : [])];
    for (const m of masks) {
      for (const z of this.zones) for (let i = 0; i < z.roads.length; i++) m[z.roads[i]] = 0;
      for (const list of hardLists) for (let i = 0; i < list.length; i++) m[list[i]] = 0;
    }
    return masks;
  }
}
