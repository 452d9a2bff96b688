import { DetourError, ErrorCode } from '../errors.js';
import { carRoadAttributes, type OsmTags } from './carProfile.js';
import { GraphBuilder, type WayAttributes } from './GraphBuilder.js';
import { readRoadLimits } from './vehicleLimits.js';
import { labelKeyOf } from './roadLabels.js';
import type { RoadGraph } from './RoadGraph.js';

interface GeoJsonFeature {
  type: 'Feature';
  properties?: Record<string, unknown> | null;
  geometry?: { type: string; coordinates: unknown } | null;
}

export interface GeoJsonImportOptions {
  source?: string;
  attribution?: string;
}

/**
 * Builds a RoadGraph from a GeoJSON FeatureCollection of OSM-tagged LineStrings / MultiLineStrings
 * (properties are the OSM tags: highway, oneway, maxspeed, ...). Lines meet where they share an
 * exact coordinate. A line with neither `highway` nor `route` is taken as `highway=road`.
 * Other geometry types (areas, points) are skipped.
 */
export function importGeoJson(data: unknown, options: GeoJsonImportOptions = {}): RoadGraph {
  const fc = data as { type?: unknown; features?: unknown };
  if (!fc || typeof fc !== 'object' || fc.type !== 'FeatureCollection' || !Array.isArray(fc.features)) {
    throw new DetourError(ErrorCode.INVALID_INPUT, 'GeoJSON input must be a FeatureCollection with a features array');
  }
  const builder = new GraphBuilder();
  const pointOf = new Map<string, number>();
  const pointIndex = (coord: unknown, where: string): number => {
    if (!Array.isArray(coord) || coord.length < 2 || !Number.isFinite(coord[0]) || !Number.isFinite(coord[1])) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `${where}: a position must be [longitude, latitude] numbers`);
    }
    const [lon, lat] = coord as number[];
    if (lat < -90 || lat > 90 || lon < -180 || lon > 180) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `${where}: [${lon}, ${lat}] is out of range`);
    }
    const key = `${lon},${lat}`;
    let p = pointOf.get(key);
    if (p === undefined) {
      p = builder.addPoint(lat, lon);
      pointOf.set(key, p);
    }
    return p;
  };

  (fc.features as GeoJsonFeature[]).forEach((feature, f) => {
    const geometry = feature?.geometry;
    if (!geometry) return;
    let lines: unknown[];
    if (geometry.type === 'LineString') lines = [geometry.coordinates];
    else if (geometry.type === 'MultiLineString' && Array.isArray(geometry.coordinates)) lines = geometry.coordinates;
    else return;
    const tags: OsmTags = {};
    for (const [k, v] of Object.entries(feature.properties ?? {})) {
      if (v !== null && v !== undefined) tags[k] = String(v);
    }
    if (tags.highway === undefined && tags.route === undefined) tags.highway = 'road';
    const attrs: WayAttributes | null = carRoadAttributes(tags);
    if (!attrs) return;
    attrs.limits = readRoadLimits(tags);
    attrs.label = labelKeyOf(tags);
    lines.forEach((line, l) => {
      const where = `features[${f}].geometry.coordinates${geometry.type === 'MultiLineString' ? `[${l}]` : ''}`;
      if (!Array.isArray(line)) throw new DetourError(ErrorCode.INVALID_INPUT, `${where}: a line must be an array`);
      builder.addWay(line.map((c, i) => pointIndex(c, `${where}[${i}]`)), attrs);
    });
  });
  return builder.build({
    source: options.source ?? 'GeoJSON',
    attribution: options.attribution ?? '',
    profile: 'car',
    builtAt: new Date().toISOString(),
  });
}
