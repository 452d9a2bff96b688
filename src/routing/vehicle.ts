import { DetourError, ErrorCode } from '../errors.js';
import { ROAD_COST_UNIT, type Metric, type RoadGraph } from '../graph/RoadGraph.js';
import { LIMIT_FIELDS, LIMIT_KEYS, LimitAccess, limitsAt, type LimitField, type RoadLimits } from '../graph/vehicleLimits.js';
import type { BlockedCellCliques } from './PathSearch.js';
import type { OverlayCliques, PenalisedCellCliques } from '../hierarchy/CellOverlay.js';
import { checkSpeedPreferences, roadTimes, speedsKey, type SpeedPreference, type SpeedRules } from './roadTimes.js';
import { AXLE_WORDS, vehicleAxles } from '../vehicleTypes.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { ZoneVehicles } from '../zones/Zone.js';

/**
 * A vehicle a route must be legal for: its dimensions and weights (metres, tonnes; undefined:
 * not checked), which access class of OSM's it belongs to, and whether it carries dangerous goods.
 */
export interface Vehicle {
  /** Maplink's vehicle type it was made from, or 'CUSTOM' for a specification alone. */
  type: string;
  heightM?: number;
  widthM?: number;
  lengthM?: number;
  /** Gross weight (with trailers and load). */
  weightT?: number;
  /** Heaviest load on one axle. */
  axleLoadT?: number;
  /** `hgv`: a heavy goods vehicle (over 3.5 t); `goods`: a goods vehicle up to 3.5 t; `none`: neither (cars, buses). */
  accessClass: 'hgv' | 'goods' | 'none';
  /** Carries dangerous (explosive, polluting) goods: `hazmat=no` roads are closed to it. */
  hazmat: boolean;
  /** Speeds per Maplink road type (Maplink's `speedPreferences`), capping the road's own. */
  speedPreferences?: SpeedPreference[];
}

/** A vehicle's speed rules (roadTimes): heavy vehicles (trucks, buses, anything over 3.5 t) drive at heavy speeds. */
export function speedRules(v: Vehicle): SpeedRules {
  return { heavy: v.accessClass === 'hgv' || v.type.startsWith('BUS_') || (v.weightT !== undefined && v.weightT > 3.5), preferences: v.speedPreferences };
}

/** The key of a vehicle's speeds (speedsKey); undefined for a car's (no vehicle, or a light one without preferences). */
export function vehicleSpeedsKey(v: Vehicle | undefined): string | undefined {
  return v && speedsKey(speedRules(v));
}

/**
 * Figures of Maplink's vehicle types. Maplink's types are Brazil's toll categories (axles; single or
 * dual tyres), so the figures are Brazil's legal maxima for each (CONTRAN Resolução 210/2006: width
 * 2.60 m, height 4.40 m, length 14.00 m for a single unit, 18.60 m articulated, 19.80 m for a
 * combination of 7-8 axles; 30.00 m for a 9-10 axle road train, Resolução 211/2006), and gross
 * weights summed from its per-axle limits (6 t a steering axle on single tyres, 10 t a single axle
 * on dual tyres, 17 t a tandem pair, 25.5 t a tandem triple), capped at 45 t up to 6 axles, 57 t
 * for 7-8 and 74 t for 9-10. TRUCK_WITH_TWO_SINGLE_AXIS is an urban light truck: São Paulo's VUC
 * (Decreto 48.338/2007: 2.20 m wide, 7.20 m long), 12 t on two single-tyred axles. Cars with a
 * trailer: 3.5 t (a category B licence's limit). CAR and MOTORCYCLE are routed as the car profile
 * routes (no limits apply). A vehicleSpecification's figures replace these.
 */
const TRUCK_GROSS_T = [0, 0, 16, 23, 33, 41.5, 45, 57, 57, 74, 74];

export const VEHICLE_TYPE_FIGURES: Readonly<Record<string, Omit<Vehicle, 'type'>>> = (() => {
  const out: Record<string, Omit<Vehicle, 'type'>> = {
    CAR: { accessClass: 'none', hazmat: false },
    MOTORCYCLE: { accessClass: 'none', hazmat: false },
    CAR_WITH_THREE_SIMPLE_AXLES: { weightT: 3.5, accessClass: 'none', hazmat: false },
    CAR_WITH_FOUR_SIMPLE_AXLES: { weightT: 3.5, accessClass: 'none', hazmat: false },
    TRUCK_WITH_TWO_SINGLE_AXIS: { heightM: 4.4, widthM: 2.2, lengthM: 7.2, weightT: 12, axleLoadT: 6, accessClass: 'hgv', hazmat: false },
  };
  for (const [word, n] of Object.entries(AXLE_WORDS)) {
    const lengthM = n <= 3 ? 14 : n <= 6 ? 18.6 : n <= 8 ? 19.8 : 30;
    const dims = { heightM: 4.4, widthM: 2.6, lengthM, weightT: TRUCK_GROSS_T[n], axleLoadT: 10, hazmat: false };
    out[`TRUCK_WITH_${word}_DOUBLE_AXLES`] = { ...dims, accessClass: 'hgv' };
    if (n <= 5) out[`BUS_WITH_${word}_DOUBLE_AXLES`] = { ...dims, lengthM: n === 2 ? 14 : n === 3 ? 15 : 18.6, accessClass: 'none' };
  }
  return out;
})();

/** Maplink's `vehicleSpecification` (v1): weights in kilograms, lengths in metres. */
export interface VehicleSpecification {
  maxWeight?: number | null;
  maxWeightPerAxle?: number | null;
  maxLength?: number | null;
  maxLengthBetweenAxles?: number | null;
  maxWidth?: number | null;
  maxHeight?: number | null;
  maxWeightForExplodingMaterials?: number | null;
  maxWeightForPollutingMaterials?: number | null;
  maxWeightForDangerousMaterials?: number | null;
  loadTypes?: string[] | null;
}

/** Largest figure a specification may give (beyond it the request is surely in other units). */
const SPEC_BOUNDS: Record<string, number> = { maxWeight: 500_000, maxWeightPerAxle: 100_000, maxLength: 100, maxWidth: 20, maxHeight: 20, maxLengthBetweenAxles: 100 };

/**
 * The vehicle of a request: a Maplink vehicleType, a vehicleSpecification, or both (the
 * specification's figures win), with its `speeds` (Maplink's speedPreferences: a car with them
 * when it names neither); undefined when the request names none of them (a car). Throws
 * INVALID_VEHICLE naming the member for a value that is not a number in range, INVALID_INPUT
 * naming the member of a bad speed preference.
 */
export function vehicleOf(type?: string | null, spec?: VehicleSpecification | null, field = 'vehicleSpecification', speeds?: unknown): Vehicle | undefined {
  const speedPreferences = checkSpeedPreferences(speeds);
  if (type == null && (spec == null || Object.keys(spec).length === 0)) {
    return speedPreferences && { type: 'CAR', ...VEHICLE_TYPE_FIGURES.CAR, speedPreferences };
  }
  if (type != null && !(type in VEHICLE_TYPE_FIGURES)) {
    throw new DetourError(ErrorCode.INVALID_VEHICLE, `vehicleType must be one of ${Object.keys(VEHICLE_TYPE_FIGURES).join(', ')}, got ${JSON.stringify(type)}`, { field: 'vehicleType' });
  }
  const base: Vehicle = { type: type ?? 'CUSTOM', ...(VEHICLE_TYPE_FIGURES[type ?? 'CAR']) };
  const figures = spec ?? {};
  const number = (key: keyof VehicleSpecification): number | undefined => {
    const v = figures[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > (SPEC_BOUNDS[key] ?? 500_000)) {
      throw new DetourError(
        ErrorCode.INVALID_VEHICLE,
        `${field}.${key} must be a number from 0 to ${SPEC_BOUNDS[key] ?? 500_000} (${key.startsWith('maxWeight') ? 'kilograms' : 'metres'}), got ${JSON.stringify(v)}`,
        { field: `${field}.${key}` },
      );
    }
    return v > 0 ? v : undefined;
  };
  const kg = (key: keyof VehicleSpecification) => { const v = number(key); return v === undefined ? undefined : v / 1000; };
  const vehicle: Vehicle = { ...base };
  const set = (f: LimitField, v: number | undefined) => { if (v !== undefined) vehicle[f] = v; };
  set('heightM', number('maxHeight'));
  set('widthM', number('maxWidth'));
  set('lengthM', number('maxLength'));
  set('weightT', kg('maxWeight'));
  set('axleLoadT', kg('maxWeightPerAxle'));
  number('maxLengthBetweenAxles'); // checked; OSM signs no limit on it
  if (kg('maxWeightForExplodingMaterials') || kg('maxWeightForPollutingMaterials') || kg('maxWeightForDangerousMaterials')) vehicle.hazmat = true;
  const loads = figures.loadTypes;
  if (loads != null && !Array.isArray(loads)) throw new DetourError(ErrorCode.INVALID_VEHICLE, `${field}.loadTypes must be an array`, { field: `${field}.loadTypes` });
  if (type == null && spec) {
    // A specification alone: a heavy goods vehicle when over 3.5 t, a goods vehicle when it carries goods.
    const weight = vehicle.weightT;
    vehicle.accessClass = weight !== undefined && weight > 3.5 ? 'hgv' : loads?.includes('GOODS') ? 'goods' : 'none';
  }
  if (speedPreferences) vehicle.speedPreferences = speedPreferences;
  return vehicle;
}

/** Why a road is closed to a vehicle, e.g. `maxheight 3.5 m (the vehicle: 4.4 m)` or `hgv=no`. */
export function limitReason(limits: RoadLimits, vehicle: Vehicle): string | undefined {
  for (const f of LIMIT_FIELDS) {
    const limit = limits[f], own = vehicle[f];
    if (limit !== undefined && own !== undefined && own > limit) {
      const unit = f === 'weightT' || f === 'axleLoadT' ? 't' : 'm';
      return `${LIMIT_KEYS[f]} ${round2(limit)} ${unit} (the vehicle: ${round2(own)} ${unit})`;
    }
  }
  const access = vehicle.accessClass === 'hgv' ? limits.hgv : vehicle.accessClass === 'goods' ? limits.goods : LimitAccess.YES;
  if (access === LimitAccess.NO) return `${vehicle.accessClass}=no`;
  if (vehicle.hazmat && limits.noHazmat) return 'hazmat=no';
  return undefined;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The roads a vehicle may not use at all, and those it may use only to reach a stop on them (`destination`, `delivery`). */
export interface VehicleRoads {
  vehicle: Vehicle;
  forbidden: Uint32Array;
  destinationOnly: Uint32Array;
  /**
   * Set by Router.prepareVehicle: both lists as one (ascending), with the overlay's small cells
   * they touch customized around them and the big cells holding those (each on its own), so
   * routes cross those cells by clique instead of walking their roads.
   */
  prepared?: {
    closed: Uint32Array; cliques: BlockedCellCliques; bigCliques: BlockedCellCliques[];
    /**
     * The small cells of the destination-only roads with cliques that drive them at
     * ZONE_COST_PER_METRE (the forbidden ones closed): a leg that must drive such roads crosses
     * those cells on the class's router (Router.leg) instead of walking them.
     */
    penalised?: PenalisedCellCliques;
    /** The overlay's cliques with those of the class's cells (replacedCliques), for its own router (makeClassRouter). */
    overlay?: OverlayCliques;
    /**
     * Per node, 0 in the largest strongly connected component of the graph without the class's
     * closed and destination-only roads, else (what those roads enclose) 1 + log2 of its own
     * component's size (outsideLargestComponent), on shared memory: for legs with a stop behind
     * them (EnclosureSearch). Set when it has destination-only roads.
     */
    enclosed?: Uint8Array;
  };
}

/** A vehicle's figures as a key: vehicles with equal figures close the same roads. */
export function vehicleKey(v: Vehicle): string {
  return [v.heightM, v.widthM, v.lengthM, v.weightT, v.axleLoadT, v.accessClass, v.hazmat, vehicleSpeedsKey(v) ?? ''].join('|');
}

/**
 * Which of the graph's limited roads close to the vehicle, in O(limited roads). A destination-only
 * road of no length is open: legs keep to such roads by the metres they drive on them (the penalty
 * per metre), and it has none, so a path through it is as good as one through an open road.
 */
export function vehicleRoads(graph: RoadGraph, vehicle: Vehicle): VehicleRoads {
  const forbidden: number[] = [];
  const destination: number[] = [];
  const roads = graph.limitRoads, lengthCm = graph.roadLengthCm;
  for (let k = 0; k < roads.length; k++) {
    const limits = limitsAt(graph, k);
    if (limitReason(limits, vehicle) !== undefined) forbidden.push(roads[k]);
    else if ((vehicle.accessClass === 'hgv' ? limits.hgv : vehicle.accessClass === 'goods' ? limits.goods : LimitAccess.YES) === LimitAccess.DESTINATION && lengthCm[roads[k]] > 0) destination.push(roads[k]);
  }
  return { vehicle, forbidden: Uint32Array.from(forbidden), destinationOnly: Uint32Array.from(destination) };
}

/**
 * Per metric and edge, what a vehicle class's own hierarchies contract (contractInOrder): the
 * graph's costs (a timed view's: the vehicle's times) with the roads of `closed` (lists of road
 * ids) at Infinity.
 */
export function classEdgeCosts(graph: RoadGraph, closedLists: readonly ArrayLike<number>[]): Record<Metric, Float64Array> {
  const closed = new Uint8Array(graph.roadCount);
  for (const list of closedLists) for (let i = 0; i < list.length; i++) closed[list[i]] = 1;
  const edgeRoad = graph.edgeRoad;
  const costs = (metric: Metric) => {
    const perRoad = graph.roadCost(metric), unit = ROAD_COST_UNIT[metric];
    const out = new Float64Array(edgeRoad.length);
    for (let e = 0; e < edgeRoad.length; e++) out[e] = closed[edgeRoad[e]] ? Infinity : perRoad[edgeRoad[e]] * unit;
    return out;
  };
  return { duration: costs('duration'), distance: costs('distance') };
}

/**
 * What a vehicle class's own hierarchies contract (Router.vehicleHierarchies): classEdgeCosts over
 * its road times (`times`, when made already) without its closed and destination-only roads;
 * undefined for a vehicle that drives every road as a car does.
 */
export function vehicleClassCosts(graph: RoadGraph, vehicle: Vehicle, times = roadTimes(graph, speedRules(vehicle))): Record<Metric, Float64Array> | undefined {
  const roads = vehicleRoads(graph, vehicle);
  if (!times && roads.forbidden.length === 0 && roads.destinationOnly.length === 0) return undefined;
  return classEdgeCosts(times ? graph.withRoadTimes(times.speedKmh, times.millis) : graph, [roads.forbidden, roads.destinationOnly]);
}

/** The vehicle as a response reports it: its type and the figures applied. */
export function appliedVehicle(v: Vehicle): Record<string, unknown> {
  return {
    vehicleType: v.type,
    ...(v.heightM !== undefined && { height: v.heightM }),
    ...(v.widthM !== undefined && { width: v.widthM }),
    ...(v.lengthM !== undefined && { length: v.lengthM }),
    ...(v.weightT !== undefined && { weight: Math.round(v.weightT * 1000) }),
    ...(v.axleLoadT !== undefined && { weightPerAxle: Math.round(v.axleLoadT * 1000) }),
    accessClass: v.accessClass,
    dangerousGoods: v.hazmat,
    ...(v.speedPreferences && { speedPreferences: v.speedPreferences }),
    heavySpeeds: speedRules(v).heavy,
  };
}

/**
 * Whether a zone's vehicles rule takes in a vehicle: its type is listed, or one of its figures
 * reaches a minimum given (tonnes, metres, axles: those of its Maplink type). No rule: every
 * vehicle. A request without a vehicle is a car of no known figures: only a rule listing CAR takes it in.
 */
export function zoneAppliesTo(rule: ZoneVehicles | undefined, vehicle?: Vehicle): boolean {
  if (!rule) return true;
  const type = vehicle?.type ?? 'CAR';
  if (rule.types?.includes(type)) return true;
  if (!vehicle) return false;
  const reaches = (min: number | undefined, value: number | undefined) => min !== undefined && value !== undefined && value >= min;
  return reaches(rule.minWeight, vehicle.weightT) || reaches(rule.minLength, vehicle.lengthM) || reaches(rule.minHeight, vehicle.heightM) ||
    reaches(rule.minWidth, vehicle.widthM) || reaches(rule.minAxles, vehicleAxles(type));
}

/** The zones that apply to the vehicle (zoneAppliesTo); the same array when all do. */
export function zonesFor(zones: CalculatedZone[], vehicle?: Vehicle): CalculatedZone[] {
  return zones.every((z) => !z.zone.vehicles) ? zones : zones.filter((z) => zoneAppliesTo(z.zone.vehicles, vehicle));
}
