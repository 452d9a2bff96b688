import { openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { DetourError, ErrorCode } from '../errors.js';
import { GRAPH_MAGIC } from './graphFile.js';
import { importGeoJson } from './importGeoJson.js';
import { importOsm, type OsmImportOptions } from './importOsm.js';
import type { RoadGraph } from './RoadGraph.js';

export type InputFormat = 'detour' | 'pbf' | 'xml' | 'xml.gz' | 'geojson' | 'geojson.gz';

function readHead(path: string, bytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new DetourError(ErrorCode.FILE_NOT_FOUND, `input file not found: ${path}`, { path });
    if (code === 'EISDIR') throw new DetourError(ErrorCode.INVALID_INPUT, `${path} is a directory, not a file`, { path });
    throw new DetourError(ErrorCode.INVALID_INPUT, `cannot open ${path}: ${(err as Error).message}`, { path });
  }
  try {
    const head = Buffer.alloc(bytes);
    const n = readSync(fd, head, 0, bytes, 0);
    return head.subarray(0, n);
  } catch (err) {
    // Opening a directory succeeds on Linux; reading it is what fails.
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw new DetourError(ErrorCode.INVALID_INPUT, `${path} is a directory, not a file`, { path });
    throw new DetourError(ErrorCode.INVALID_INPUT, `cannot read ${path}: ${(err as Error).message}`, { path });
  } finally {
    closeSync(fd);
  }
}

function firstNonSpace(text: string): string {
  return text.trimStart().charAt(0);
}

/** Tells the format of a file from its first bytes (not its name). */
export function detectFormat(path: string): InputFormat {
  const head = readHead(path, 4096);
  if (head.subarray(0, 8).toString('latin1') === GRAPH_MAGIC) return 'detour';
  // PBF: 4-byte big-endian header length, then a BlobHeader whose type string is "OSMHeader".
  if (head.length > 16 && head.subarray(4, 32).toString('latin1').includes('OSMHeader')) return 'pbf';
  let text: string;
  let gz = false;
  if (head[0] === 0x1f && head[1] === 0x8b) {
    gz = true;
    try {
      text = gunzipPrefix(path);
    } catch {
      throw new DetourError(ErrorCode.INVALID_INPUT, `${path} looks gzipped but does not decompress`, { path });
    }
  } else {
    text = head.toString('utf8');
  }
  const c = firstNonSpace(text.replace(/^\uFEFF/, ''));
  if (c === '<') return gz ? 'xml.gz' : 'xml';
  if (c === '{') return gz ? 'geojson.gz' : 'geojson';
  throw new DetourError(
    ErrorCode.UNKNOWN_FORMAT,
    `${path}: unknown format (expected .osm.pbf, .osm, .osm.gz, GeoJSON or a detour graph)`,
    { path },
  );
}

function gunzipPrefix(path: string): string {
  // Small inputs decompress whole; large ones only need their first block to be recognised.
  const head = readHead(path, 1 << 16);
  return gunzipSync(head, { finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a cut stream */ }).subarray(0, 4096).toString('utf8');
}

/**
 * Imports an OSM or GeoJSON input with the car profile (a detour graph file is loaded by
 * hierarchy/graphFiles.ts openGraph, with its hierarchy).
 */
export async function importInput(path: string, format: Exclude<InputFormat, 'detour'>, options: OsmImportOptions = {}): Promise<RoadGraph> {
  const totalBytes = statSync(path).size;
  switch (format) {
    case 'pbf':
    case 'xml':
    case 'xml.gz':
      return importOsm(path, format, { totalBytes, ...options });
    case 'geojson':
    case 'geojson.gz': {
      let data: unknown;
      try {
        const raw = readFileSync(path);
        data = JSON.parse((format === 'geojson.gz' ? gunzipSync(raw) : raw).toString('utf8'));
      } catch (err) {
        throw new DetourError(ErrorCode.INVALID_INPUT, `${path} is not valid JSON: ${(err as Error).message}`, { path });
      }
      return importGeoJson(data, { source: options.source ?? path });
    }
  }
}
