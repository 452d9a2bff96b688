import type { Ring } from '../geo/PreparedPolygon.js';
import type { ZoneSchedule } from './schedule.js';

/** A vertex as the Restriction Zone API writes it, in decimal degrees. */
export interface ZoneVertex {
  latitude: number;
  longitude: number;
}

/**
 * Which vehicles a zone closes its roads to (a detour extension of Maplink's zone): those of the
 * Maplink types listed, and those at or above any minimum given (gross tonnes, metres, axles). A
 * zone without it applies to every vehicle.
 */
export interface ZoneVehicles {
  types?: string[];
  minWeight?: number;
  minLength?: number;
  minHeight?: number;
  minWidth?: number;
  minAxles?: number;
}

/** The minimums of ZoneVehicles, and their largest values (beyond them a request is surely in other units). */
export const ZONE_VEHICLE_MINIMUMS = { minWeight: 500, minLength: 100, minHeight: 20, minWidth: 20, minAxles: 20 } as const;

/**
 * How a route treats a zone (a detour extension): HARD (the default) never drives its roads but to
 * reach a stop; SOFT drives them when going around costs more than `costPerKm` per km of them
 * (seconds for THE_FASTEST, metres for THE_SHORTEST).
 */
export interface ZoneAvoidance {
  mode: 'HARD' | 'SOFT';
  costPerKm?: number;
}

/** Largest costPerKm of a SOFT zone: a day per km (beyond it a zone is as good as HARD). */
export const MAX_SOFT_COST_PER_KM = 86_400;

/** A zone as the API takes it: a name and one or more polygons (outer rings, no holes), and optionally its rules. */
export interface ZoneInput {
  name: string;
  geometries: Array<{ name?: string; vertices: ZoneVertex[] }>;
  vehicles?: ZoneVehicles;
  avoidance?: ZoneAvoidance;
  schedule?: ZoneSchedule;
}

/** A polygon of a zone: an outer ring and optional holes, as [longitude, latitude] (GeoJSON order), open. */
export interface ZonePolygon {
  name: string;
  rings: Ring[];
}

/** A validated zone. */
export interface Zone {
  name: string;
  polygons: ZonePolygon[];
  /** The vehicles it applies to (absent: every vehicle). */
  vehicles?: ZoneVehicles;
  /** HARD (absent) or SOFT with its cost per km. */
  avoidance?: ZoneAvoidance;
  /** When it is active (absent: always). */
  schedule?: ZoneSchedule;
}

export type ZoneRules = Pick<Zone, 'vehicles' | 'avoidance' | 'schedule'>;

/** A zone's rules (those it has), as they travel with it: to threads, into stored bodies. */
export function zoneRules(zone: ZoneRules): ZoneRules {
  return { ...(zone.vehicles && { vehicles: zone.vehicles }), ...(zone.avoidance && { avoidance: zone.avoidance }), ...(zone.schedule && { schedule: zone.schedule }) };
}

/** The cost per metre of a SOFT zone's roads (in the metric's units), or undefined for a HARD one. */
export function softCostPerMetre(zone: Zone): number | undefined {
  return zone.avoidance?.mode === 'SOFT' ? zone.avoidance.costPerKm! / 1000 : undefined;
}

export type ZoneStatusName = 'IN_CALCULATION' | 'CALCULATED' | 'CALCULATED_WITHOUT_ROADS' | 'CALCULATION_ERROR';

export interface ZoneStatus {
  name: ZoneStatusName;
  description: string;
}

/** The status objects of the Restriction Zone API. */
export function zoneStatus(name: ZoneStatusName, reason?: string): ZoneStatus {
  switch (name) {
    case 'IN_CALCULATION':
      return { name, description: 'Calculating roads inside geometries' };
    case 'CALCULATED':
      return { name, description: 'Roads inside restriction zone calculated' };
    case 'CALCULATED_WITHOUT_ROADS':
      return { name, description: 'No road found after calculation inside restriction zone' };
    case 'CALCULATION_ERROR':
      return { name, description: `Error trying to calculate restriction zone: ${reason ?? 'unknown error'}` };
  }
}

/** Limits a zone must respect (documented in the README). */
export const ZONE_LIMITS = {
  nameMaxLength: 100,
  geometriesMax: 100,
  verticesMax: 10_000,
  /** All geometries together; keeps a zone's JSON body under a few MB. */
  zoneVerticesMax: 100_000,
} as const;

/** The zone back in the API's shape (vertices of the outer rings; holes are a library-only feature). */
export function zoneToInput(zone: Zone): ZoneInput {
  return {
    name: zone.name,
    geometries: zone.polygons.map((p) => ({
      name: p.name,
      vertices: p.rings[0].map(([longitude, latitude]) => ({ latitude, longitude })),
    })),
    ...zoneRules(zone),
  };
}
