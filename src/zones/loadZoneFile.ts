import { basename } from 'node:path';
import { DetourError, ErrorCode } from '../errors.js';
import { readInputFile } from '../readInputFile.js';
import type { Zone, ZoneRules } from './Zone.js';
import { checkZoneRules, validateZone, ZoneValidationError, type ValidationIssue } from './validateZone.js';
import { zoneFromGeoJson } from './zoneFromGeoJson.js';

/**
 * Reads a zone file: a zone in the API's shape (`{name, geometries: [{vertices}]}`) or GeoJSON
 * (Polygon, MultiPolygon, Feature or FeatureCollection; named by its `name` property or the file name,
 * its rules in its `vehicles`, `avoidance` and `schedule` properties: a Feature's, or a
 * FeatureCollection's own `properties` member).
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
  return { ...zoneFromGeoJson(name, data), ...geoJsonRules(props) };
}

/** A GeoJSON zone's rules, read from its (root) properties as a zone body carries them; issues name `properties.<member>`. */
function geoJsonRules(props: Record<string, unknown>): ZoneRules {
  const issues: ValidationIssue[] = [];
  const rules = checkZoneRules(props, issues);
  if (issues.length > 0) throw new ZoneValidationError(issues.map((i) => ({ ...i, path: `properties.${i.path}` })));
  return rules;
}
