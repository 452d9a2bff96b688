import type { Ring } from '../geo/PreparedPolygon.js';

/** A vertex as the Restriction Zone API writes it, in decimal degrees. */
export interface ZoneVertex {
  latitude: number;
  longitude: number;
}

/** A zone as the API takes it: a name and one or more polygons (outer rings, no holes). */
export interface ZoneInput {
  name: string;
  geometries: Array<{ name?: string; vertices: ZoneVertex[] }>;
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
  };
}
