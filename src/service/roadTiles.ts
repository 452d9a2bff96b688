import GeoJSONVT from 'geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { Feature, FeatureCollection, LineString } from 'geojson';
import { DetourError, ErrorCode } from '../errors.js';
import { RoadIndex } from '../zones/RoadIndex.js';
import { HIGHWAY_CLASSES, RoadFlag } from '../graph/carProfile.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { fromE7 } from '../geo/coordinates.js';

/** Tiles are cut from this zoom on (a lower zoom's tile would hold too much of a big graph). */
export const MIN_TILE_ZOOM = 8;
/** Deepest zoom cut; a map shows deeper zooms by scaling these (MapLibre overzooms). */
export const MAX_TILE_ZOOM = 15;

/** The least important road class shown below a zoom: motorways and trunks at 8, all roads from 13. */
const CLASS_FROM_ZOOM: Readonly<Record<string, number>> = {
  motorway: 8, motorway_link: 10, trunk: 8, trunk_link: 10, primary: 9, primary_link: 11, secondary: 10, secondary_link: 12,
  tertiary: 11, tertiary_link: 12, unclassified: 12, residential: 13, living_street: 13, service: 14, road: 13, ferry: 10,
};

/** Tiles kept per graph (a few hundred KiB of a map session). */
const CACHE_TILES = 256;
/**
 * Most roads cut into one tile: a tile costs about 30 us per road on the main thread (geojson-vt
 * and vt-pbf), so this keeps one under about 100 ms on any graph. A denser low-zoom tile of a
 * country graph leaves the rest out (zoom in to see every road).
 */
export const MAX_TILE_ROADS = 3_000;
/** From this zoom on, tiles query the graph's own road index (every class); below, an index of the classes shown. */
const FULL_INDEX_ZOOM = 13;

/**
 * Mapbox vector tiles of a road graph, layer `roads` (feature id: the road; properties `class`, `oneway`, and `tunnel`,
 * `bridge`, `toll`, `ferry`, `unpaved` when set), cut on demand: a tile costs the roads whose boxes
 * meet it (a flatbush query over the classes its zoom shows), at most MAX_TILE_ROADS, cut and
 * encoded by geojson-vt and @maplibre/vt-pbf. Recent tiles are cached.
 */
export class RoadTiles {
  /** Per zoom below FULL_INDEX_ZOOM, an index of the roads shown there; from it on, the graph's own. */
  private readonly byZoom = new Map<number, RoadIndex>();
  private readonly cache = new Map<string, Uint8Array>();
  private readonly minClassZoom: Uint8Array;
  /** The graph's bounds, [west, south, east, north] in degrees. */
  readonly bounds: [number, number, number, number];

  /** Makes every index tiles query, and the bounds, here: no tile request builds one. */
  constructor(readonly graph: RoadGraph) {
    this.minClassZoom = Uint8Array.from(HIGHWAY_CLASSES, (c) => CLASS_FROM_ZOOM[c] ?? 13);
    // Per zoom below FULL_INDEX_ZOOM, the roads whose class it shows, ascending: counted, then filled.
    const fromZoom = new Uint8Array(graph.roadCount);
    const counts = new Uint32Array(FULL_INDEX_ZOOM);
    for (let r = 0; r < graph.roadCount; r++) {
      const z = (fromZoom[r] = Math.max(MIN_TILE_ZOOM, this.minClassZoom[graph.roadClass[r]]));
      if (z < FULL_INDEX_ZOOM) counts[z]++;
    }
    const shown: Uint32Array[] = [];
    for (let z = MIN_TILE_ZOOM, total = 0; z < FULL_INDEX_ZOOM; z++) shown[z] = new Uint32Array((total += counts[z]));
    const filled = new Uint32Array(FULL_INDEX_ZOOM);
    for (let r = 0; r < graph.roadCount; r++) {
      for (let z = fromZoom[r]; z < FULL_INDEX_ZOOM; z++) shown[z][filled[z]++] = r;
    }
    for (let z = MIN_TILE_ZOOM; z < FULL_INDEX_ZOOM; z++) this.byZoom.set(z, RoadIndex.ofRoads(graph, shown[z]));
    RoadIndex.for(graph);
    // In 1e-7 degree, as stored: one conversion per side.
    const { nodeLatE7, nodeLonE7 } = graph;
    let w = Infinity, south = Infinity, e = -Infinity, n = -Infinity;
    for (let v = 0; v < nodeLatE7.length; v++) {
      const lon = nodeLonE7[v], lat = nodeLatE7[v];
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < south) south = lat;
      if (lat > n) n = lat;
    }
    this.bounds = [fromE7(w), fromE7(south), fromE7(e), fromE7(n)];
  }

  /**
   * The tile z/x/y as MVT bytes (empty when no road is in it). Throws INVALID_INPUT for a tile
   * outside the zoom range or the grid.
   */
  tile(z: number, x: number, y: number): Uint8Array {
    if (!Number.isInteger(z) || z < MIN_TILE_ZOOM || z > MAX_TILE_ZOOM) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `z must be an integer from ${MIN_TILE_ZOOM} to ${MAX_TILE_ZOOM}, got ${z}`, { field: 'z' });
    }
    const size = 2 ** z;
    for (const [name, v] of [['x', x], ['y', y]] as const) {
      if (!Number.isInteger(v) || v < 0 || v >= size) {
        throw new DetourError(ErrorCode.INVALID_INPUT, `${name} must be an integer from 0 to ${size - 1} at zoom ${z}, got ${v}`, { field: name });
      }
    }
    const key = `${z}/${x}/${y}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const bytes = this.cut(z, x, y);
    this.cache.set(key, bytes);
    if (this.cache.size > CACHE_TILES) this.cache.delete(this.cache.keys().next().value!);
    return bytes;
  }

  /** The index a tile at zoom z queries: only the classes shown there, so a low zoom's cost is the major roads'. */
  private indexFor(z: number): RoadIndex {
    return this.byZoom.get(z) ?? RoadIndex.for(this.graph);
  }

  private cut(z: number, x: number, y: number): Uint8Array {
    const g = this.graph;
    // The tile's box with a 1/16 margin, so lines crossing its edge are cut, not dropped.
    const margin = 1 / 16;
    const west = tileLon(x - margin, z), east = tileLon(x + 1 + margin, z);
    const north = tileLat(y - margin, z), south = tileLat(y + 1 + margin, z);
    const features: Feature<LineString>[] = [];
    for (const r of this.indexFor(z).roadsInBox(west, south, east, north)) {
      const cls = g.roadClass[r];
      if (this.minClassZoom[cls] > z) continue;
      if (features.length === MAX_TILE_ROADS) break;
      const n = g.roadPointCount(r);
      const coordinates: number[][] = new Array(n);
      for (let k = 0; k < n; k++) coordinates[k] = [g.roadPointLon(r, k), g.roadPointLat(r, k)];
      const f = g.roadFlags[r];
      const properties: Record<string, string | number> = {
        class: HIGHWAY_CLASSES[cls],
        oneway: (f & RoadFlag.FORWARD) && (f & RoadFlag.BACKWARD) ? 0 : 1,
      };
      if (f & RoadFlag.TUNNEL) properties.tunnel = 1;
      if (f & RoadFlag.BRIDGE) properties.bridge = 1;
      if (f & (RoadFlag.TOLL | RoadFlag.TOLL_GATE)) properties.toll = 1;
      if (f & RoadFlag.FERRY) properties.ferry = 1;
      if (f & RoadFlag.UNPAVED) properties.unpaved = 1;
      features.push({ type: 'Feature', id: r, properties, geometry: { type: 'LineString', coordinates } });
    }
    if (features.length === 0) return new Uint8Array(0);
    const collection: FeatureCollection<LineString> = { type: 'FeatureCollection', features };
    // Only this tile's roads: index straight down to z, then take the one tile.
    const cutter = new GeoJSONVT(collection, { maxZoom: z, indexMaxZoom: 0, tolerance: 3, buffer: 64 });
    const tile = cutter.getTile(z, x, y);
    if (!tile || tile.features.length === 0) return new Uint8Array(0);
    return fromGeojsonVt({ roads: tile }, { version: 2 });
  }
}

/** Longitude of a tile column edge (fractional columns allowed). */
function tileLon(x: number, z: number): number {
  return (x / 2 ** z) * 360 - 180;
}

/** Latitude of a tile row edge (Web Mercator), clamped to the projection's range. */
function tileLat(y: number, z: number): number {
  const n = Math.PI - (2 * Math.PI * Math.max(0, Math.min(2 ** z, y))) / 2 ** z;
  return (180 / Math.PI) * Math.atan(Math.sinh(n));
}
