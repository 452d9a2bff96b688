import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { OSMTransform } from 'osm-pbf-parser-node';
import { SaxesParser } from 'saxes';
import { DetourError, ErrorCode } from '../errors.js';
import { carRoadAttributes, type OsmTags, type RoadAttributes } from './carProfile.js';
import { GraphBuilder } from './GraphBuilder.js';
import { Growable } from './growable.js';
import type { RoadGraph } from './RoadGraph.js';

export const OSM_ATTRIBUTION = '© OpenStreetMap contributors, ODbL 1.0 (https://www.openstreetmap.org/copyright)';

/** Called as the input is read: bytes of the file read so far, total bytes, and which pass (1 or 2). */
export type ProgressCallback = (bytesRead: number, totalBytes: number, pass: number) => void;

export interface OsmImportOptions {
  onProgress?: ProgressCallback;
  /** Total size of the input in bytes, for progress. */
  totalBytes?: number;
  /** Source name stored in the graph; defaults to the path. */
  source?: string;
}

export type OsmFormat = 'pbf' | 'xml' | 'xml.gz';

interface OsmHandlers {
  node?(id: number, lat: number, lon: number): void;
  way?(id: number, refs: ArrayLike<number>, tags: OsmTags): void;
}

/**
 * Imports an OpenStreetMap extract (.osm.pbf, .osm, .osm.gz) into a RoadGraph with the car profile.
 * Reads the file twice: first the ways (to learn which nodes roads use), then only those nodes,
 * so memory grows with the road network, not with the whole extract.
 */
export async function importOsm(path: string, format: OsmFormat, options: OsmImportOptions = {}): Promise<RoadGraph> {
  const ways: { refsStart: number[]; attrs: RoadAttributes[] } = { refsStart: [0], attrs: [] };
  const refs = new Growable(Float64Array, 1 << 16);
  await readOsm(path, format, 1, options, {
    way(_id, wayRefs, tags) {
      const attrs = carRoadAttributes(tags);
      if (!attrs || wayRefs.length < 2) return;
      for (let i = 0; i < wayRefs.length; i++) refs.push(wayRefs[i]);
      ways.refsStart.push(refs.length);
      ways.attrs.push(attrs);
    },
  });

  const allRefs = refs.toArray();
  const ids = uniqueSorted(allRefs);
  const lat = new Float64Array(ids.length).fill(NaN);
  const lon = new Float64Array(ids.length).fill(NaN);
  await readOsm(path, format, 2, options, {
    node(id, nodeLat, nodeLon) {
      const i = binarySearch(ids, id);
      if (i >= 0) {
        lat[i] = nodeLat;
        lon[i] = nodeLon;
      }
    },
  });

  const builder = new GraphBuilder();
  for (let i = 0; i < ids.length; i++) builder.addPoint(lat[i], lon[i]);
  const wayPoints: number[] = [];
  for (let w = 0; w < ways.attrs.length; w++) {
    wayPoints.length = 0;
    for (let k = ways.refsStart[w]; k < ways.refsStart[w + 1]; k++) {
      const p = binarySearch(ids, allRefs[k]);
      if (Number.isNaN(lat[p])) {
        // A node outside the extract: the way continues beyond it, so split the way there.
        builder.addWay(wayPoints, ways.attrs[w]);
        wayPoints.length = 0;
      } else {
        wayPoints.push(p);
      }
    }
    builder.addWay(wayPoints, ways.attrs[w]);
  }
  return builder.build({
    source: options.source ?? path,
    attribution: OSM_ATTRIBUTION,
    profile: 'car',
    builtAt: new Date().toISOString(),
  });
}

function uniqueSorted(values: Float64Array): Float64Array {
  const sorted = values.slice().sort();
  let k = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[k - 1]) sorted[k++] = sorted[i];
  return sorted.slice(0, k);
}

function binarySearch(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v < value) lo = mid + 1;
    else if (v > value) hi = mid - 1;
    else return mid;
  }
  return -1;
}

function openCounted(path: string, pass: number, options: OsmImportOptions): Readable {
  const file = createReadStream(path);
  if (options.onProgress) {
    let bytes = 0;
    const total = options.totalBytes ?? 0;
    file.on('data', (chunk) => {
      bytes += chunk.length;
      options.onProgress!(bytes, total, pass);
    });
  }
  return file;
}

function invalid(path: string, format: string, cause: unknown): DetourError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DetourError(ErrorCode.INVALID_INPUT, `${path} is not a valid OSM ${format} file: ${reason}`, { path });
}

async function readOsm(path: string, format: OsmFormat, pass: number, options: OsmImportOptions, on: OsmHandlers) {
  if (format === 'pbf') return readPbf(path, pass, options, on);
  return readXml(path, format === 'xml.gz', pass, options, on);
}

async function readPbf(path: string, pass: number, options: OsmImportOptions, on: OsmHandlers): Promise<void> {
  const file = openCounted(path, pass, options);
  const parser = new OSMTransform({ withTags: { node: false, way: Boolean(on.way), relation: false }, withInfo: false });
  file.on('error', (err) => parser.destroy(err));
  file.pipe(parser);
  try {
    for await (const batch of parser as AsyncIterable<Array<Record<string, unknown>>>) {
      for (const item of batch) {
        if (item.type === 'node') {
          if (!on.node) continue;
          on.node(item.id as number, item.lat as number, item.lon as number);
        } else if (item.type === 'way') {
          // Blocks come nodes first, then ways: a node pass may stop at the first way.
          if (!on.way) {
            file.destroy();
            return;
          }
          on.way(item.id as number, item.refs as number[], (item.tags ?? {}) as OsmTags);
        }
      }
    }
  } catch (err) {
    throw invalid(path, 'PBF', err);
  } finally {
    file.destroy();
  }
}

async function readXml(path: string, gzipped: boolean, pass: number, options: OsmImportOptions, on: OsmHandlers) {
  const file = openCounted(path, pass, options);
  const input: Readable = gzipped ? file.pipe(createGunzip()) : file;
  if (gzipped) file.on('error', (err) => input.destroy(err));
  input.setEncoding('utf8');
  const parser = new SaxesParser();
  let wayId = -1;
  let wayRefs: number[] = [];
  let wayTags: OsmTags = {};
  let sawRoot = false;
  // saxes keeps one handler per event, so this one handler does everything.
  parser.on('opentag', (tag) => {
    if (!sawRoot) {
      if (tag.name !== 'osm') throw new Error(`root element is <${tag.name}>, expected <osm>`);
      sawRoot = true;
    }
    const a = tag.attributes as Record<string, string>;
    switch (tag.name) {
      case 'node':
        if (on.node) on.node(Number(a.id), Number(a.lat), Number(a.lon));
        break;
      case 'way':
        wayId = Number(a.id);
        wayRefs = [];
        wayTags = {};
        break;
      case 'nd':
        if (wayId >= 0) wayRefs.push(Number(a.ref));
        break;
      case 'tag':
        if (wayId >= 0) wayTags[a.k] = a.v;
        break;
    }
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'way') {
      if (on.way) on.way(wayId, wayRefs, wayTags);
      wayId = -1;
    }
  });
  try {
    for await (const chunk of input) parser.write(chunk as string);
    parser.close();
  } catch (err) {
    throw invalid(path, gzipped ? 'XML (gzip)' : 'XML', err);
  } finally {
    file.destroy();
  }
}
