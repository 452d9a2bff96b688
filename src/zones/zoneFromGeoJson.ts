import type { Ring } from '../geo/PreparedPolygon.js';
import type { Zone, ZonePolygon } from './Zone.js';
import { checkRing, zoneNameProblem, ZoneValidationError, type ValidationIssue } from './validateZone.js';

type Json = Record<string, unknown>;

/**
 * Builds a zone from GeoJSON: a Polygon or MultiPolygon (holes allowed), a Feature of one, or a
 * FeatureCollection of such Features. Each polygon is validated like an API geometry; a Feature's
 * `properties.name` names its polygons. Throws ZoneValidationError with GeoJSON paths.
 */
export function zoneFromGeoJson(name: string, geojson: unknown): Zone {
  const issues: ValidationIssue[] = [];
  const nameProblem = zoneNameProblem(name);
  if (nameProblem) issues.push({ path: 'name', message: nameProblem });
  const polygons: ZonePolygon[] = [];

  const addPolygon = (coords: unknown, at: string, polygonName: string) => {
    if (!Array.isArray(coords) || coords.length === 0) {
      issues.push({ path: at, message: 'a Polygon needs an array of rings' });
      return;
    }
    const rings: Ring[] = [];
    coords.forEach((ring, ri) => {
      const path = `${at}[${ri}]`;
      if (!Array.isArray(ring) || ring.some((p) => !Array.isArray(p) || p.length < 2 || !p.slice(0, 2).every((c: unknown) => typeof c === 'number' && Number.isFinite(c)))) {
        issues.push({ path, message: 'a ring must be an array of [longitude, latitude] numbers' });
        return;
      }
      const bad = (ring as number[][]).findIndex((p) => Math.abs(p[0]) > 180 || Math.abs(p[1]) > 90);
      if (bad >= 0) {
        issues.push({ path: `${path}[${bad}]`, message: `[${ring[bad][0]}, ${ring[bad][1]}] is out of range (longitude in [-180, 180], latitude in [-90, 90])` });
        return;
      }
      const checked = checkRing(ring as number[][], path, issues);
      if (checked) rings.push(checked);
    });
    if (rings.length === coords.length) polygons.push({ name: polygonName, rings });
  };

  const addGeometry = (g: unknown, at: string, polygonName: string) => {
    const geometry = g as Json | null;
    if (!geometry || typeof geometry !== 'object') {
      issues.push({ path: at, message: 'must be a GeoJSON geometry' });
    } else if (geometry.type === 'Polygon') {
      addPolygon(geometry.coordinates, `${at}.coordinates`, polygonName);
    } else if (geometry.type === 'MultiPolygon' && Array.isArray(geometry.coordinates)) {
      geometry.coordinates.forEach((c, i) => addPolygon(c, `${at}.coordinates[${i}]`, polygonName ? `${polygonName} ${i + 1}` : ''));
    } else {
      issues.push({ path: at, message: `must be a Polygon or MultiPolygon, got ${String(geometry.type)}` });
    }
  };

  const addFeature = (f: unknown, at: string) => {
    const feature = f as Json | null;
    if (!feature || feature.type !== 'Feature') {
      issues.push({ path: at, message: 'must be a GeoJSON Feature' });
      return;
    }
    const props = (feature.properties ?? {}) as Json;
    addGeometry(feature.geometry, `${at}.geometry`, typeof props.name === 'string' ? props.name : '');
  };

  const root = geojson as Json | null;
  if (!root || typeof root !== 'object') issues.push({ path: '$', message: 'must be a GeoJSON object' });
  else if (root.type === 'FeatureCollection' && Array.isArray(root.features)) {
    if (root.features.length === 0) issues.push({ path: 'features', message: 'must have at least one polygon feature' });
    root.features.forEach((f, i) => addFeature(f, `features[${i}]`));
  } else if (root.type === 'Feature') addFeature(root, '$');
  else addGeometry(root, '$', '');

  if (issues.length === 0 && polygons.length === 0) issues.push({ path: '$', message: 'has no polygon' });
  if (issues.length > 0) throw new ZoneValidationError(issues);
  return { name, polygons };
}
