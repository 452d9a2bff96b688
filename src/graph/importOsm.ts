import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { OSMTransform } from 'osm-pbf-parser-node';
import { SaxesParser } from 'saxes';
import { DetourError, ErrorCode } from '../errors.js';
import { labelKeyOf } from './roadLabels.js';
import { carBarrierBlocks, carRoadAttributes, RoadFlag, type OsmTags } from './carProfile.js';
import { GraphBuilder, type RoadLayout, type TurnRule, type TurnStats, type WayAttributes } from './GraphBuilder.js';
import { Growable } from './growable.js';
import { emptyLimitCounts, readRoadLimits, type LimitCounts, type RoadLimits } from './vehicleLimits.js';
import type { RoadGraph } from './RoadGraph.js';
import {
  emptyRestrictionSummary, isRestrictionRelation, parseRestriction, resolveRestriction,
  type OsmMember, type OsmRestriction, type ResolvedRestriction, type RestrictionSummary, type WayIndex,
} from './turnRestrictions.js';

export const OSM_ATTRIBUTION = '© OpenStreetMap contributors, ODbL 1.0 (https://www.openstreetmap.org/copyright)';

/** Called as the input is read: bytes of the file read so far, total bytes, and which pass (1 or 2). */
export type ProgressCallback = (bytesRead: number, totalBytes: number, pass: number) => void;

/** What an OSM import read and did, for the `import` command and tests. */
export interface ImportSummary {
  /** Ways cars may use. */
  carWays: number;
  /** Of those, the ways with a name, ref or destination (their roads keep it for instructions). */
  labelledWays: number;
  /** Turn restriction relations: read, applied, skipped by reason. */
  restrictions: RestrictionSummary;
  /**
   * Barrier nodes on car roads: those that stop cars (roads end there), those cars pass, and of
   * these the toll booths (the roads through them are flagged TOLL_GATE).
   */
  barriers: { blocking: number; passable: number; tollBooths: number };
  /** What the restrictions cost: forbidden edge sequences, node copies and edges added. */
  turns: TurnStats;
  /**
   * Limits on heavy vehicles (vehicleLimits.ts): car ways and nodes on them that carry one, roads of
   * the graph that do, and per OSM key the values read, those signing no limit and those unreadable
   * (counted, never guessed); `*:conditional` keys are counted and not read.
   */
  vehicleLimits: LimitCounts & { ways: number; nodes: number; roads: number };
}

export interface OsmImportOptions {
  onProgress?: ProgressCallback;
  /** Total size of the input in bytes, for progress. */
  totalBytes?: number;
  /** Source name stored in the graph; defaults to the path. */
  source?: string;
  /** Receives the import summary once the graph is built. */
  onSummary?: (summary: ImportSummary) => void;
  /** false: read no turn restrictions (to measure what they cost). Default true. */
  turnRestrictions?: boolean;
}

export type OsmFormat = 'pbf' | 'xml' | 'xml.gz';

interface OsmHandlers {
  node?(id: number, lat: number, lon: number, tags: OsmTags | undefined): void;
  way?(id: number, refs: ArrayLike<number>, tags: OsmTags): void;
  relation?(id: number, members: OsmMember[], tags: OsmTags): void;
}

/** Node keys that put a limit on heavy vehicles passing the node. */
const NODE_LIMIT_KEYS = ['maxheight', 'maxwidth', 'maxlength', 'maxweight', 'maxaxleload', 'hgv', 'goods', 'hazmat'];
/** Node tags the car profile reads (barriers and their access), and the limits on heavy vehicles. */
const NODE_TAG_KEYS = ['barrier', 'access', 'motorcar', 'motor_vehicle', 'vehicle', 'bollard', 'kerb', 'highway', 'sensory', ...NODE_LIMIT_KEYS];

/**
 * Imports an OpenStreetMap extract (.osm.pbf, .osm, .osm.gz) into a RoadGraph with the car profile.
 * Reads the file twice: first the ways and turn restriction relations (to learn which nodes roads
 * use), then only those nodes with their barrier tags, so memory grows with the road network, not
 * with the whole extract.
 */
export async function importOsm(path: string, format: OsmFormat, options: OsmImportOptions = {}): Promise<RoadGraph> {
  const { graph, summary } = await importOsmWithSummary(path, format, options);
  options.onSummary?.(summary);
  return graph;
}

/** importOsm, also returning what the import read and did. */
export async function importOsmWithSummary(
  path: string, format: OsmFormat, options: OsmImportOptions = {},
): Promise<{ graph: RoadGraph; summary: ImportSummary }> {
  const ways: { ids: Growable<Float64Array>; refsStart: number[]; attrs: WayAttributes[] } = {
    ids: new Growable(Float64Array, 1 << 12), refsStart: [0], attrs: [],
  };
  const refs = new Growable(Float64Array, 1 << 16);
  // Other highways (footways, ...), only to tell "not a car road" from "outside the extract".
  const otherHighwayIds = new Growable(Float64Array, 1 << 12);
  const restrictions: OsmRestriction[] = [];
  const summary: ImportSummary = {
    carWays: 0,
    labelledWays: 0,
    restrictions: emptyRestrictionSummary(),
    barriers: { blocking: 0, passable: 0, tollBooths: 0 },
    turns: { sequences: 0, uTurnSequences: 0, nodesAdded: 0, edgesAdded: 0 },
    vehicleLimits: { ...emptyLimitCounts(), ways: 0, nodes: 0, roads: 0 },
  };
  const limitCounts = summary.vehicleLimits;
  await readOsm(path, format, 1, options, {
    way(id, wayRefs, tags) {
      const attrs: WayAttributes | null = carRoadAttributes(tags);
      if (!attrs || wayRefs.length < 2) {
        if (tags.highway !== undefined) otherHighwayIds.push(id);
        return;
      }
      attrs.limits = readRoadLimits(tags, limitCounts);
      if (attrs.limits) limitCounts.ways++;
      attrs.label = labelKeyOf(tags);
      if (attrs.label) summary.labelledWays++;
      for (let i = 0; i < wayRefs.length; i++) refs.push(wayRefs[i]);
      ways.ids.push(id);
      ways.refsStart.push(refs.length);
      ways.attrs.push(attrs);
    },
    relation(id, members, tags) {
      if (options.turnRestrictions === false || !isRestrictionRelation(tags)) return;
      summary.restrictions.read++;
      const r = parseRestriction(id, tags, members);
      if (typeof r === 'string') summary.restrictions.skipped[r]++;
      else restrictions.push(r);
    },
  });
  summary.carWays = ways.attrs.length;

  const allRefs = refs.toArray();
  const ids = uniqueSorted(allRefs);
  const lat = new Float64Array(ids.length).fill(NaN);
  const lon = new Float64Array(ids.length).fill(NaN);
  const blocking = new Uint8Array(ids.length);
  const tollBooths: number[] = [];
  const limitedPoints: Array<[number, RoadLimits]> = [];
  // Via nodes that no car way uses: only whether they exist is needed.
  const strayVia = new Map<number, boolean>();
  for (const r of restrictions) if (r.viaNode !== undefined && binarySearch(ids, r.viaNode) < 0) strayVia.set(r.viaNode, false);
  await readOsm(path, format, 2, options, {
    node(id, nodeLat, nodeLon, tags) {
      const i = binarySearch(ids, id);
      if (i >= 0) {
        lat[i] = nodeLat;
        lon[i] = nodeLon;
        if (tags && (tags.barrier !== undefined || tags.access !== undefined || tags.motorcar !== undefined ||
          tags.motor_vehicle !== undefined || tags.vehicle !== undefined)) {
          if (carBarrierBlocks(tags)) {
            blocking[i] = 1;
            summary.barriers.blocking++;
          } else if (tags.barrier !== undefined) {
            summary.barriers.passable++;
            if (tags.barrier === 'toll_booth') tollBooths.push(i);
          }
        }
        if (tags && NODE_LIMIT_KEYS.some((k) => tags[k] !== undefined)) {
          const limits = readRoadLimits(tags, limitCounts);
          if (limits) limitedPoints.push([i, limits]);
        }
      } else if (strayVia.has(id)) {
        strayVia.set(id, true);
      }
    },
  });

  const builder = new GraphBuilder();
  for (let i = 0; i < ids.length; i++) builder.addPoint(lat[i], lon[i]);
  for (const i of tollBooths) builder.flagPoint(i, RoadFlag.TOLL_GATE);
  for (const [i, limits] of limitedPoints) builder.limitPoint(i, limits);
  limitCounts.nodes = limitedPoints.length;
  summary.barriers.tollBooths = tollBooths.length;
  // Per reference position: the point index (-1 outside the extract), and the builder way and
  // segment of the segment ending there (-1 for a way's first point or a repeated point).
  const refPoint = new Int32Array(allRefs.length);
  const segWay = new Int32Array(allRefs.length).fill(-1);
  const segIndex = new Int32Array(allRefs.length).fill(-1);
  const piece: number[] = [];
  const pieceRefs: number[] = []; // reference positions of piece[1..]
  const flush = (attrs: WayAttributes) => {
    const w = piece.length >= 2 ? builder.addWay(piece, attrs) : -1;
    if (w >= 0) {
      pieceRefs.forEach((k, i) => {
        segWay[k] = w;
        segIndex[k] = i;
      });
    }
    piece.length = 0;
    pieceRefs.length = 0;
  };
  for (let w = 0; w < ways.attrs.length; w++) {
    const attrs = ways.attrs[w];
    let previous = -1;
    for (let k = ways.refsStart[w]; k < ways.refsStart[w + 1]; k++) {
      const p = binarySearch(ids, allRefs[k]);
      if (Number.isNaN(lat[p])) {
        // A node outside the extract: the way continues beyond it, so split the way there.
        refPoint[k] = -1;
        flush(attrs);
        previous = -1;
        continue;
      }
      refPoint[k] = p;
      if (p === previous) continue; // a repeated point: no segment
      previous = p;
      if (blocking[p]) {
        // A barrier: the road on each side ends at its own copy of the point, so none passes it.
        if (piece.length > 0) {
          piece.push(builder.addPoint(lat[p], lon[p]));
          pieceRefs.push(k);
        }
        flush(attrs);
        piece.push(builder.addPoint(lat[p], lon[p]));
        continue;
      }
      if (piece.length > 0) pieceRefs.push(k);
      piece.push(p);
    }
    flush(attrs);
  }

  // Car ways by OSM id: ids sorted, with each one's way index (typed arrays, not a Map, for big extracts).
  const wayIds = ways.ids.toArray();
  const wayOrder = Uint32Array.from(wayIds.keys()).sort((a, b) => wayIds[a] - wayIds[b]);
  const sortedCarWayIds = Float64Array.from(wayOrder, (w) => wayIds[w]);
  const sortedOtherIds = uniqueSorted(otherHighwayIds.toArray());
  const index: WayIndex = {
    wayOf: (id) => {
      const i = binarySearch(sortedCarWayIds, id);
      return i >= 0 ? wayOrder[i] : undefined;
    },
    hasWay: (id) => binarySearch(sortedOtherIds, id) >= 0,
    refs: (w) => refPoint.subarray(ways.refsStart[w], ways.refsStart[w + 1]),
    pointOf: (node) => {
      const i = binarySearch(ids, node);
      return i >= 0 && !Number.isNaN(lat[i]) ? i : -1;
    },
    hasNode: (node) => strayVia.get(node) === true || binarySearch(ids, node) >= 0,
    blocks: (p) => p >= 0 && blocking[p] === 1,
  };
  const resolved: ResolvedRestriction[] = [];
  for (const r of restrictions) {
    const res = resolveRestriction(r, index);
    if (typeof res === 'string') {
      summary.restrictions.skipped[res]++;
      continue;
    }
    for (const p of res.viaPoints) builder.keepNode(p);
    resolved.push(res);
  }

  const turnRules = (layout: RoadLayout): TurnRule[] => {
    const rules: TurnRule[] = [];
    for (const res of resolved) {
      const mapped: TurnRule[] = [];
      let joined = true;
      for (const seq of res.sequences) {
        const roads: number[] = [];
        for (const s of seq) {
          const k = ways.refsStart[s.way] + s.k;
          if (segWay[k] < 0) {
            joined = false; // a segment that became no road (defensive: resolve checks the points)
            break;
          }
          const d = layout.directedRoad(segWay[k], segIndex[k], s.against);
          if (roads[roads.length - 1] !== d) roads.push(d);
        }
        // Consecutive roads must meet: a check that the via really joins them.
        for (let i = 1; i < roads.length; i++) {
          if (layout.directedRoadEnd(roads[i - 1]) !== layout.directedRoadStart(roads[i])) joined = false;
        }
        mapped.push({ kind: res.kind, roads });
      }
      if (!joined) {
        summary.restrictions.skipped.viaNotJoined++;
        continue;
      }
      summary.restrictions.applied++;
      rules.push(...mapped);
    }
    return rules;
  };
  const graph = builder.build(
    { source: options.source ?? path, attribution: OSM_ATTRIBUTION, profile: 'car', builtAt: new Date().toISOString() },
    turnRules,
  );
  summary.turns = builder.turnStats;
  limitCounts.roads = graph.limitRoads.length;
  return { graph, summary };
}

function uniqueSorted(values: Float64Array): Float64Array {
  const sorted = values.slice().sort();
  let k = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[k - 1]) sorted[k++] = sorted[i];
  return sorted.slice(0, k);
}

function binarySearch(sorted: Float64Array, value: number): number {
  if (Number.isNaN(value)) return -1; // an id that is not a number (a malformed file) matches nothing
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
  const parser = new OSMTransform({
    withTags: { node: on.node ? NODE_TAG_KEYS : false, way: Boolean(on.way), relation: Boolean(on.relation) },
    withInfo: false,
  });
  file.on('error', (err) => parser.destroy(err));
  file.pipe(parser);
  try {
    for await (const batch of parser as AsyncIterable<Array<Record<string, unknown>>>) {
      for (const item of batch) {
        if (item.type === 'node') {
          if (!on.node) continue;
          on.node(item.id as number, item.lat as number, item.lon as number, item.tags as OsmTags | undefined);
        } else if (item.type === 'way') {
          // Blocks come nodes first, then ways: a node pass may stop at the first way.
          if (!on.way) {
            file.destroy();
            return;
          }
          on.way(item.id as number, item.refs as number[], (item.tags ?? {}) as OsmTags);
        } else if (item.type === 'relation' && on.relation) {
          on.relation(item.id as number, item.members as OsmMember[], (item.tags ?? {}) as OsmTags);
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
  let node: { id: number; lat: number; lon: number; tags: OsmTags } | null = null;
  let relation: { id: number; members: OsmMember[]; tags: OsmTags } | null = null;
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
        if (on.node) node = { id: Number(a.id), lat: Number(a.lat), lon: Number(a.lon), tags: {} };
        break;
      case 'way':
        wayId = Number(a.id);
        wayRefs = [];
        wayTags = {};
        break;
      case 'relation':
        if (on.relation) relation = { id: Number(a.id), members: [], tags: {} };
        break;
      case 'member':
        relation?.members.push({ type: a.type, ref: Number(a.ref), role: a.role ?? '' });
        break;
      case 'nd':
        if (wayId >= 0) wayRefs.push(Number(a.ref));
        break;
      case 'tag':
        if (wayId >= 0) wayTags[a.k] = a.v;
        else if (node) node.tags[a.k] = a.v;
        else if (relation) relation.tags[a.k] = a.v;
        break;
    }
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'way') {
      if (on.way) on.way(wayId, wayRefs, wayTags);
      wayId = -1;
    } else if (tag.name === 'node' && node) {
      on.node!(node.id, node.lat, node.lon, node.tags);
      node = null;
    } else if (tag.name === 'relation' && relation) {
      on.relation!(relation.id, relation.members, relation.tags);
      relation = null;
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

/** The import summary as lines for the `import` command. */
export function formatImportSummary(s: ImportSummary): string[] {
  const r = s.restrictions;
  const skipped = Object.entries(r.skipped).filter(([, n]) => n > 0);
  const skippedTotal = skipped.reduce((sum, [, n]) => sum + n, 0);
  const reasons = skipped.length ? ` (${skipped.map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
  return [
    `turn restrictions: ${r.read} read, ${r.applied} applied, ${skippedTotal} skipped${reasons}; ` +
      `junction copies add ${s.turns.nodesAdded} nodes and ${s.turns.edgesAdded} edges`,
    `barriers: ${s.barriers.blocking} stop cars, ${s.barriers.passable} passable (${s.barriers.tollBooths} toll booths)`,
    vehicleLimitsLine(s.vehicleLimits),
  ];
}

function vehicleLimitsLine(v: ImportSummary['vehicleLimits']): string {
  const list = (counts: Record<string, number>) => Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  return `heavy-vehicle limits: ${v.roads} roads carry one (from ${v.ways} ways, ${v.nodes} nodes); read ${list(v.read)}; ` +
    `no limit ${list(v.noLimit)}; unreadable ${list(v.unreadable)}; conditional not read ${v.conditional}`;
}
