import { basename } from 'node:path';
import { DetourError, ErrorCode } from '../errors.js';
import { readInputFile } from '../readInputFile.js';
import type { Zone } from './Zone.js';
import { validateZone } from './validateZone.js';
import { zoneFromGeoJson } from './zoneFromGeoJson.js';

/**
 * Reads a zone file: a zone in the API's shape (`{name, geometries: [{vertices}]}`) or GeoJSON
 * (Polygon, MultiPolygon, Feature or FeatureCollection; named by its `name` property or the file name).
 */
export function loadZoneFile(path: string): Zone {
  const text = readInputFile(path, 'zone file').toString('utf8');
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `zone file ${path} is not valid JSON: ${(err as Error).message}`, { path });
  }
  if (data && typeof data === 'object' && 'geometries' in data) return validateZone(data);
  const props = (data?.properties ?? {}) as Record<string, unknown>;
  const name = typeof data?.name === 'string' ? data.name : typeof props.name === 'string' ? props.name : basename(path).replace(/\.(geo)?json$/i, '');
  return zoneFromGeoJson(name, data);
}
