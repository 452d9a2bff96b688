import { DetourError, ErrorCode } from '../errors.js';
import { HIGHWAY_CLASSES, RoadFlag } from '../graph/carProfile.js';
import { COST_STEP, roadMillis, type RoadGraph } from '../graph/RoadGraph.js';
import { LIMIT_STRIDE, STORED_FIELDS } from '../graph/vehicleLimits.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';

/** Maplink's road types (`speedPreferences[].roadType`). */
export const ROAD_TYPES = [
  'FERRY', 'PENALIZED_LOCAL_ROAD', 'LOCAL_ROAD', 'PENALIZED_SECONDARY_ROAD', 'SECONDARY_ROAD', 'PENALIZED_MAIN_ROAD',
  'MAIN_ROAD', 'EXPRESSWAY', 'HIGHWAY',
] as const;
export type RoadType = (typeof ROAD_TYPES)[number];

/** A speed (km/h) for the roads of one Maplink road type, and on its toll roads; 0 or absent: the default. */
export interface SpeedPreference {
  roadType: RoadType;
  speed?: number;
  speedAtToll?: number;
}

/**
 * Heavy vehicles' speeds: Brazil's Código de Trânsito (CTB, Lei 9.503/1997, art. 61) limits every
 * vehicle other than cars, vans and motorcycles to 90 km/h on highways, and heavy vehicles drive
 * fast roads slower than cars: 90 % of the car's speed where that exceeds 50 km/h (GraphHopper's
 * truck custom model). Urban limits are the same for every vehicle. A road's `maxspeed:hgv`
 * lowers a heavy vehicle's speed further where it is signed.
 */
export const HEAVY_MAX_KMH = 90;
export const HEAVY_FACTOR = 0.9;
export const HEAVY_FACTOR_ABOVE_KMH = 50;

/** The Maplink road type of each highway class (HIGHWAY_CLASSES order); unpaved roads of the last three are PENALIZED_. */
const CLASS_ROAD_TYPE: Readonly<Record<string, RoadType>> = {
  motorway: 'HIGHWAY', motorway_link: 'HIGHWAY', trunk: 'EXPRESSWAY', trunk_link: 'EXPRESSWAY',
  primary: 'MAIN_ROAD', primary_link: 'MAIN_ROAD', secondary: 'SECONDARY_ROAD', secondary_link: 'SECONDARY_ROAD',
  tertiary: 'SECONDARY_ROAD', tertiary_link: 'SECONDARY_ROAD', ferry: 'FERRY',
};
const PENALIZED: Partial<Record<RoadType, RoadType>> = { LOCAL_ROAD: 'PENALIZED_LOCAL_ROAD', SECONDARY_ROAD: 'PENALIZED_SECONDARY_ROAD', MAIN_ROAD: 'PENALIZED_MAIN_ROAD' };

/** A road's Maplink road type from its highway class and flags. */
export function roadTypeOf(roadClass: number, flags: number): RoadType {
  if (flags & RoadFlag.FERRY) return 'FERRY';
  const type = CLASS_ROAD_TYPE[HIGHWAY_CLASSES[roadClass]] ?? 'LOCAL_ROAD';
  return (flags & RoadFlag.UNPAVED) !== 0 ? PENALIZED[type] ?? type : type;
}

/**
 * Checks a request's `speedPreferences` (Maplink's: an array of {roadType, speed, speedAtToll}),
 * naming the member at fault; returns them without the empty ones (undefined when none is left).
 */
export function checkSpeedPreferences(value: unknown, field = 'speedPreferences'): SpeedPreference[] | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (at: string, why: string) => new DetourError(ErrorCode.INVALID_INPUT, `${at} ${why}`, { field: at });
  if (!Array.isArray(value)) throw bad(field, 'must be an array of {roadType, speed, speedAtToll}');
  if (value.length > ROAD_TYPES.length) throw bad(field, `has at most ${ROAD_TYPES.length} entries (one per road type), got ${value.length}`);
  const out: SpeedPreference[] = [];
  const seen = new Set<string>();
  value.forEach((p, i) => {
    const at = `${field}[${i}]`;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw bad(at, 'must be an object {roadType, speed, speedAtToll}');
    const { roadType, speed, speedAtToll, ...rest } = p as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) throw bad(`${at}.${extra[0]}`, 'is not a member of a speed preference (roadType, speed, speedAtToll)');
    if (!ROAD_TYPES.includes(roadType as RoadType)) throw bad(`${at}.roadType`, `must be one of ${ROAD_TYPES.join(', ')}, got ${JSON.stringify(roadType)}`);
    if (seen.has(roadType as string)) throw bad(`${at}.roadType`, `names ${roadType as string} a second time`);
    seen.add(roadType as string);
    const kmh = (v: unknown, name: string): number | undefined => {
      if (v === undefined || v === null || v === 0) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 1 || v > 300) throw bad(`${at}.${name}`, `must be a speed in km/h from 1 to 300 (0: the default), got ${JSON.stringify(v)}`);
      return v;
    };
    const s = kmh(speed, 'speed'), t = kmh(speedAtToll, 'speedAtToll');
    if (s !== undefined || t !== undefined) out.push({ roadType: roadType as RoadType, ...(s !== undefined && { speed: s }), ...(t !== undefined && { speedAtToll: t }) });
  });
  return out.length > 0 ? out : undefined;
}

/**
 * A vehicle's travel times where they differ from the graph's (a car's): per road its speed and
 * whole milliseconds, and the roads where it is slower (ascending). Never faster than the car:
 * the graph's hierarchy, overlay and landmarks then stay lower bounds of its times.
 */
export interface RoadTimes {
  /** The speed rules applied, as a key: vehicles with equal keys drive at equal speeds. */
  key: string;
  speedKmh: Float32Array;
  millis: Uint32Array;
  retimed: Uint32Array;
}

/** What sets a vehicle's speeds: whether it is heavy (HEAVY_MAX_KMH, HEAVY_FACTOR), and its preferences per road type. */
export interface SpeedRules {
  heavy: boolean;
  preferences?: readonly SpeedPreference[];
}

/** The key of speed rules; undefined when they are a car's (not heavy, no preferences). */
export function speedsKey(rules: SpeedRules): string | undefined {
  const prefs = rules.preferences;
  if (!rules.heavy && !prefs?.length) return undefined;
  return `${rules.heavy ? 'heavy' : 'car'}${prefs?.length ? `|${prefs.map((p) => `${p.roadType}:${p.speed ?? ''}:${p.speedAtToll ?? ''}`).sort().join(',')}` : ''}`;
}

/**
 * The road times (RoadTimes) of speed rules on a graph, in O(roads); undefined for a car's rules. A road's speed is the car's, capped for heavy vehicles (HEAVY_MAX_KMH,
 * HEAVY_FACTOR) and by the preference for its road type (speedAtToll on toll roads, else speed).
 */
export function roadTimes(graph: RoadGraph, rules: SpeedRules): RoadTimes | undefined {
  const key = speedsKey(rules);
  if (key === undefined) return undefined;
  const heavy = rules.heavy;
  const plain = new Float64Array(ROAD_TYPES.length).fill(Infinity), toll = new Float64Array(ROAD_TYPES.length).fill(Infinity);
  for (const p of rules.preferences ?? []) {
    const t = ROAD_TYPES.indexOf(p.roadType);
    if (p.speed !== undefined) plain[t] = p.speed;
    toll[t] = p.speedAtToll ?? p.speed ?? Infinity;
  }
  // Per highway class and flags (unpaved, toll, ferry) the preference cap, looked up once per combination.
  const typeIndex = new Map<number, number>();
  const { roadSpeedKmh, roadLengthCm, roadClass, roadFlags } = graph;
  const car = graph.roadMillis, R = graph.roadCount;
  // On shared memory: a service's threads adopt the times its main thread made (Router.adoptRoadTimes).
  const speedKmh = new Float32Array(new SharedOrPlainBuffer(4 * R)), millis = new Uint32Array(new SharedOrPlainBuffer(4 * R));
  const retimed: number[] = [];
  // Heavy vehicles' signed limits (maxspeed:hgv), read along the ascending limited roads.
  const { limitRoads, limitValues } = graph, hgvSpeed = STORED_FIELDS.indexOf('hgvSpeedKmh');
  let next = 0;
  for (let r = 0; r < R; r++) {
    const carKmh = roadSpeedKmh[r], flags = roadFlags[r];
    let kmh = carKmh;
    if (heavy) kmh = Math.min(kmh, HEAVY_MAX_KMH, carKmh > HEAVY_FACTOR_ABOVE_KMH ? carKmh * HEAVY_FACTOR : carKmh);
    while (next < limitRoads.length && limitRoads[next] < r) next++;
    if (heavy && next < limitRoads.length && limitRoads[next] === r) {
      const signed = limitValues[next * LIMIT_STRIDE + hgvSpeed];
      if (signed > 0) kmh = Math.min(kmh, signed);
    }
    const combo = (roadClass[r] << 16) | (flags & (RoadFlag.FERRY | RoadFlag.UNPAVED));
    let t = typeIndex.get(combo);
    if (t === undefined) typeIndex.set(combo, (t = ROAD_TYPES.indexOf(roadTypeOf(roadClass[r], flags))));
    kmh = Math.min(kmh, (flags & RoadFlag.TOLL) !== 0 ? toll[t] : plain[t]);
    if (kmh >= carKmh) {
      speedKmh[r] = carKmh;
      millis[r] = car[r];
    } else {
      speedKmh[r] = kmh;
      millis[r] = Math.max(car[r], roadMillis(roadLengthCm[r] * COST_STEP.distance, speedKmh[r]));
      if (millis[r] !== car[r]) retimed.push(r);
    }
  }
  return { key, speedKmh, millis, retimed: Uint32Array.from(retimed) };
}
