import Flatbush from 'flatbush';
import { DetourError, ErrorCode } from '../errors.js';
import { assertValidLatLon } from '../geo/coordinates.js';
import { cosLatitude, haversineMetres, METRES_PER_DEGREE } from '../geo/haversine.js';
import type { RoadGraph } from './RoadGraph.js';

/** A position on a road: where a query point lands on the network. */
export interface Snap {
  /** Road id. */
  road: number;
  /** Global shape index of the segment's first point (the segment runs to index + 1). */
  segment: number;
  /** Fraction along the segment, 0..1. */
  t: number;
  /** Snapped position in degrees. */
  latitude: number;
  longitude: number;
  /** Metres from the road's first shape point to the snapped position, along the road. */
  offset: number;
  /** Metres from the query point to the snapped position. */
  distance: number;
}

export interface SnapOptions {
  /** Largest distance in metres a point may be from a road (default 1,000). */
  maxDistance?: number;
  /** Roads for which this returns false are skipped. */
  accept?: (road: number) => boolean;
  /** Names the point in errors, e.g. "points[1]". */
  label?: string;
}

export const DEFAULT_MAX_SNAP_DISTANCE_M = 1000;

/**
 * A static R-tree (flatbush) over every road segment. Snapping projects the point onto the
 * nearest segment, not merely the nearest node, searching boxes of growing size.
 */
export class SnapIndex {
  private readonly index: Flatbush;
  private readonly segmentPoint: Uint32Array;
  private readonly segmentRoad: Uint32Array;

  constructor(private readonly graph: RoadGraph) {
    const { roadShapeStart, shapeLat, shapeLon } = graph;
    const roads = graph.roadCount;
    const count = shapeLat.length - roads;
    this.segmentPoint = new Uint32Array(count);
    this.segmentRoad = new Uint32Array(count);
    this.index = new Flatbush(Math.max(1, count));
    let k = 0;
    for (let r = 0; r < roads; r++) {
      for (let i = roadShapeStart[r]; i < roadShapeStart[r + 1] - 1; i++) {
        this.segmentPoint[k] = i;
        this.segmentRoad[k] = r;
        k++;
        this.index.add(
          Math.min(shapeLon[i], shapeLon[i + 1]), Math.min(shapeLat[i], shapeLat[i + 1]),
          Math.max(shapeLon[i], shapeLon[i + 1]), Math.max(shapeLat[i], shapeLat[i + 1]),
        );
      }
    }
    if (count === 0) this.index.add(0, 0, 0, 0);
    this.index.finish();
  }

  /**
   * Snaps a point (degrees) to the nearest accepted road segment. Throws POINT_NOT_ROUTABLE when
   * no road lies within maxDistance, INVALID_COORDINATE for a point that is not a valid position.
   */
  snap(latitude: number, longitude: number, options: SnapOptions = {}): Snap {
    const label = options.label ?? 'point';
    assertValidLatLon({ latitude, longitude }, label);
    const maxDistance = options.maxDistance ?? DEFAULT_MAX_SNAP_DISTANCE_M;
    for (let radius = Math.min(50, maxDistance); ; radius = Math.min(radius * 4, maxDistance)) {
      const best = this.nearestWithin(latitude, longitude, radius, options.accept);
      if (best && best.distance <= radius) return best;
      if (radius >= maxDistance) break;
    }
    throw new DetourError(
      ErrorCode.POINT_NOT_ROUTABLE,
      `${label} (${latitude}, ${longitude}) is more than ${maxDistance} m from any road`,
      { point: label, latitude, longitude },
    );
  }

  private nearestWithin(lat: number, lon: number, radius: number, accept?: (road: number) => boolean): Snap | null {
    const dLat = radius / METRES_PER_DEGREE;
    // The widest degree-span of `radius` metres is at the box edge nearest a pole.
    const cosEdge = Math.max(1e-6, cosLatitude(Math.min(89.999, Math.abs(lat) + dLat)));
    const dLon = dLat / cosEdge;
    const candidates = this.index.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
    const { shapeLat, shapeLon } = this.graph;
    const kx = cosLatitude(lat);
    let best: Snap | null = null;
    for (const k of candidates) {
      const road = this.segmentRoad[k];
      if (accept && !accept(road)) continue;
      const i = this.segmentPoint[k];
      // Project in a local equirectangular frame centred on the query point.
      const ax = (shapeLon[i] - lon) * kx, ay = shapeLat[i] - lat;
      const bx = (shapeLon[i + 1] - lon) * kx, by = shapeLat[i + 1] - lat;
      const dx = bx - ax, dy = by - ay;
      const len2 = dx * dx + dy * dy;
      let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const sLat = shapeLat[i] + t * (shapeLat[i + 1] - shapeLat[i]);
      const sLon = shapeLon[i] + t * (shapeLon[i + 1] - shapeLon[i]);
      const distance = haversineMetres(lat, lon, sLat, sLon);
      if (!best || distance < best.distance) {
        best = { road, segment: i, t, latitude: sLat, longitude: sLon, offset: 0, distance };
      }
    }
    if (best) best.offset = this.offsetAlongRoad(best.road, best.segment, best.t);
    return best;
  }

  /** Metres along road r from its first shape point to fraction t of segment i. */
  offsetAlongRoad(road: number, segment: number, t: number): number {
    const { shapeLat, shapeLon, roadShapeStart } = this.graph;
    let offset = 0;
    for (let j = roadShapeStart[road]; j < segment; j++) {
      offset += haversineMetres(shapeLat[j], shapeLon[j], shapeLat[j + 1], shapeLon[j + 1]);
    }
    const seg = haversineMetres(shapeLat[segment], shapeLon[segment], shapeLat[segment + 1], shapeLon[segment + 1]);
    return Math.min(offset + t * seg, this.graph.roadLength[road]);
  }
}
