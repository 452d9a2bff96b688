import { DetourError, ErrorCode } from './errors.js';
import { assertValidLatLon, type LatLon } from './geo/coordinates.js';
import { matrixElement, type MatrixResult } from './routing/matrix.js';
import type { CalculationMode } from './routing/routeRequest.js';
import { readInputFile } from './readInputFile.js';

/** A matrix point read from a file: its position and the id it is reported by (the row number when none). */
export interface MatrixPoint extends LatLon {
  id: string;
}

/**
 * Reads origins or destinations for `detour matrix`: JSON (an array of {latitude, longitude,
 * id?|siteId?} or a GeoJSON FeatureCollection of Points, ids from properties.id/siteId/name) or
 * CSV (`latitude,longitude[,id]`, an optional header naming the columns lat/latitude,
 * lon/lng/longitude, id/siteId/name). Errors name the file and the line or index.
 */
export function readMatrixPoints(path: string, what: string): MatrixPoint[] {
  const text = readInputFile(path, what).toString('utf8');
  const trimmed = text.trimStart();
  const points = trimmed.startsWith('[') || trimmed.startsWith('{') ? fromJson(text, path) : fromCsv(text, path);
  if (points.length === 0) throw new DetourError(ErrorCode.INVALID_INPUT, `${what} ${path} holds no points`, { path });
  points.forEach((p, i) => assertValidLatLon(p, `${path} point ${i + 1} (${p.id})`));
  return points;
}

function fromJson(text: string, path: string): MatrixPoint[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new DetourError(ErrorCode.INVALID_INPUT, `${path}: not valid JSON (${(err as Error).message})`, { path });
  }
  const fail = (where: string, why: string) => new DetourError(ErrorCode.INVALID_INPUT, `${path} ${where}: ${why}`, { path });
  if (isRecord(data) && data.type === 'FeatureCollection' && Array.isArray(data.features)) {
    return data.features.map((f: unknown, i: number) => {
      const geometry = isRecord(f) && isRecord(f.geometry) ? f.geometry : undefined;
      const c = geometry?.type === 'Point' && Array.isArray(geometry.coordinates) ? geometry.coordinates : undefined;
      if (!c) throw fail(`features[${i}]`, 'must be a Feature with a Point geometry');
      const props = isRecord(f) && isRecord(f.properties) ? f.properties : {};
      return { latitude: c[1] as number, longitude: c[0] as number, id: idOf(props, i) };
    });
  }
  if (!Array.isArray(data)) throw fail('', 'must be an array of {latitude, longitude} or a GeoJSON FeatureCollection of Points');
  return data.map((p: unknown, i: number) => {
    if (!isRecord(p)) throw fail(`[${i}]`, 'must be an object {latitude, longitude}');
    return { latitude: p.latitude as number, longitude: p.longitude as number, id: idOf(p, i) };
  });
}

function fromCsv(text: string, path: string): MatrixPoint[] {
  const lines = text.split(/\r?\n/);
  let lat = 0, lon = 1, id = 2, start = 0;
  const header = lines[0]?.split(',').map((c) => c.trim().toLowerCase()) ?? [];
  if (header.some((c) => /^(lat|latitude|lon|lng|longitude)$/.test(c))) {
    lat = header.findIndex((c) => c === 'lat' || c === 'latitude');
    lon = header.findIndex((c) => c === 'lon' || c === 'lng' || c === 'longitude');
    id = header.findIndex((c) => c === 'id' || c === 'siteid' || c === 'name');
    if (lat < 0 || lon < 0) throw new DetourError(ErrorCode.INVALID_INPUT, `${path} line 1: the header needs a latitude and a longitude column`, { path });
    start = 1;
  }
  const out: MatrixPoint[] = [];
  for (let i = start; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const cells = lines[i].split(',').map((c) => c.trim());
    const number = (k: number, name: string) => {
      const v = Number(cells[k]);
      if (cells[k] === undefined || cells[k] === '' || !Number.isFinite(v)) {
        throw new DetourError(ErrorCode.INVALID_INPUT, `${path} line ${i + 1}: ${name} ${JSON.stringify(cells[k] ?? '')} is not a number`, { path, line: i + 1 });
      }
      return v;
    };
    out.push({ latitude: number(lat, 'latitude'), longitude: number(lon, 'longitude'), id: id >= 0 && cells[id] ? cells[id] : String(out.length + 1) });
  }
  return out;
}

function idOf(record: Record<string, unknown>, index: number): string {
  const v = record.id ?? record.siteId ?? record.name;
  return v === undefined || v === null ? String(index + 1) : String(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The matrix as `detour matrix` prints it: JSON {calculationMode, elements: [{origin,
 * destination, distance (m), duration (s)} or with nulls and {error: {code, message}}]}, or CSV
 * `origin,destination,distance_m,duration_s,error`.
 */
export function formatMatrix(result: MatrixResult, origins: MatrixPoint[], destinations: MatrixPoint[], mode: CalculationMode, format: 'json' | 'csv'): string {
  const rows: { origin: string; destination: string; distance: number | null; duration: number | null; error?: { code: string; message: string } }[] = [];
  for (let o = 0; o < origins.length; o++) {
    for (let d = 0; d < destinations.length; d++) {
      const e = matrixElement(result, o, d);
      rows.push({
        origin: origins[o].id,
        destination: destinations[d].id,
        distance: e.distance === null ? null : Math.round(e.distance * 10) / 10,
        duration: e.duration === null ? null : Math.round(e.duration * 10) / 10,
        ...(e.failure ? { error: { code: e.failure.code, message: e.failure.message } } : {}),
      });
    }
  }
  if (format === 'json') return `${JSON.stringify({ calculationMode: mode, elements: rows }, null, 2)}\n`;
  const cell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = ['origin,destination,distance_m,duration_s,error'];
  for (const r of rows) lines.push([cell(r.origin), cell(r.destination), r.distance ?? '', r.duration ?? '', r.error ? cell(r.error.code) : ''].join(','));
  return `${lines.join('\n')}\n`;
}
