import Flatbush from 'flatbush';
import { DetourError, ErrorCode } from '../errors.js';
import { assertValidLatLon } from '../geo/coordinates.js';
import { cosLatitude, haversineMetres, METRES_PER_DEGREE } from '../geo/haversine.js';
import { RoadFlag } from './carProfile.js';
import { roadComponents, roadEntryNodes, roadExitNode } from './junctionNodes.js';
import { reachability, stronglyConnectedComponents } from './components.js';
import type { RoadGraph } from './RoadGraph.js';

/** A position on a road: where a query point lands on the network. */
export interface Snap {
  /** Road id. */
  road: number;
  /** Segment k of the road's polyline (from point k to point k + 1, see RoadGraph.roadPointLat). */
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
  /**
   * What the stop must do on the main network (snapChoice): a first stop must be able to drive
   * into it, a last stop to be reached from it, a via stop both (the default).
   */
  role?: StopRole;
}

/** A stop's place in a route: the first only leaves, the last only arrives, a via does both. */
export type StopRole = 'first' | 'via' | 'last';

export const DEFAULT_MAX_SNAP_DISTANCE_M = 1000;

/** Components with fewer nodes than this (or than half the largest) are tiny, as OSRM's default. */
export const TINY_COMPONENT_NODES = 1000;

/** A snap for routing: the nearest road, and the nearest road that serves the stop's role when it does not. */
export interface SnapChoice {
  nearest: Snap;
  /** Component of the nearest road (both its ends in it), or -1 when its ends differ. */
  component: number;
  /**
   * Set when the nearest road cannot serve the stop's role (a first stop that cannot drive into
   * the main network, a last stop it cannot reach): the nearest road in range that can, if any.
   */
  big?: Snap;
}

/**
 * A static R-tree (flatbush) over every road segment. Snapping projects the point onto the
 * nearest segment, not merely the nearest node, searching boxes of growing size.
 */
export class SnapIndex {
  private readonly index: Flatbush;
  /** Per indexed segment: its road, and its index within the road's polyline. */
  private readonly segmentRoad: Uint32Array;
  private readonly segmentOfRoad: Uint32Array;
  /** Per road, its strongly connected component when both ends share one, else -1. */
  private readonly roadComponent: Int32Array;
  /** Per road, 1 when both ends are in a big component. */
  private readonly roadInBigComponent: Uint8Array;
  /** Per road, 1 when a point on it can drive into a big component / be reached from one. */
  private readonly roadLeadsToBig: Uint8Array;
  private readonly roadReachedFromBig: Uint8Array;

  constructor(private readonly graph: RoadGraph) {
    const roads = graph.roadCount;
    const count = graph.shapeLat.length + roads; // each road has (interior points + 1) segments
    this.segmentRoad = new Uint32Array(count);
    this.segmentOfRoad = new Uint32Array(count);
    this.index = new Flatbush(Math.max(1, count));
    let k = 0;
    for (let r = 0; r < roads; r++) {
      const n = graph.roadPointCount(r);
      let lat0 = graph.roadPointLat(r, 0), lon0 = graph.roadPointLon(r, 0);
      for (let i = 0; i + 1 < n; i++) {
        const lat1 = graph.roadPointLat(r, i + 1), lon1 = graph.roadPointLon(r, i + 1);
        this.segmentRoad[k] = r;
        this.segmentOfRoad[k] = i;
        k++;
        this.index.add(Math.min(lon0, lon1), Math.min(lat0, lat1), Math.max(lon0, lon1), Math.max(lat0, lat1));
        lat0 = lat1;
        lon0 = lon1;
      }
    }
    if (count === 0) this.index.add(0, 0, 0, 0);
    this.index.finish();

    const { component, size } = stronglyConnectedComponents(graph);
    const largest = size.reduce((a, b) => Math.max(a, b), 0);
    const bigFrom = Math.min(TINY_COMPONENT_NODES, Math.ceil(largest / 2));
    this.roadComponent = new Int32Array(roads);
    this.roadInBigComponent = new Uint8Array(roads);
    const byEdges = roadComponents(graph, component, size);
    const bigNode = new Uint8Array(graph.nodeCount);
    for (let v = 0; v < graph.nodeCount; v++) if (size[component[v]] >= bigFrom) bigNode[v] = 1;
    const leadsToBig = reachability(graph, bigNode, true), reachedFromBig = reachability(graph, bigNode, false);
    this.roadLeadsToBig = new Uint8Array(roads);
    this.roadReachedFromBig = new Uint8Array(roads);
    for (let r = 0; r < roads; r++) {
      // As the router leaves and enters a snapped road (junction copies included): by its ends, in its directions.
      const f = graph.roadFlags[r];
      const exits = [...(f & RoadFlag.FORWARD ? [roadExitNode(graph, r, false)] : []), ...(f & RoadFlag.BACKWARD ? [roadExitNode(graph, r, true)] : [])];
      const entries = [...(f & RoadFlag.FORWARD ? roadEntryNodes(graph, r, false) : []), ...(f & RoadFlag.BACKWARD ? roadEntryNodes(graph, r, true) : [])];
      this.roadLeadsToBig[r] = exits.some((v) => leadsToBig[v]) ? 1 : 0;
      this.roadReachedFromBig[r] = entries.some((v) => reachedFromBig[v]) ? 1 : 0;
    }
    for (let r = 0; r < roads; r++) {
      const c = byEdges[r];
      if (c >= 0) {
        this.roadComponent[r] = c;
        this.roadInBigComponent[r] = size[c] >= bigFrom ? 1 : 0;
      } else {
        const a = component[graph.roadFrom[r]], b = component[graph.roadTo[r]];
        this.roadComponent[r] = -1;
        this.roadInBigComponent[r] = size[a] >= bigFrom && size[b] >= bigFrom ? 1 : 0;
      }
    }
  }

  /** True when a road's ends both lie in a big strongly connected component. */
  inBigComponent(road: number): boolean {
    return this.roadInBigComponent[road] === 1;
  }

  /** True when a stop on the road can serve `role`: drive into a big component (first), be reached from one (last), or both (via). */
  servesRole(road: number, role: StopRole = 'via'): boolean {
    if (this.roadInBigComponent[road]) return true;
    const leaves = this.roadLeadsToBig[road] === 1, arrives = this.roadReachedFromBig[road] === 1;
    return role === 'first' ? leaves : role === 'last' ? arrives : leaves && arrives;
  }

  /**
   * The nearest road and, when a stop there cannot do what its role needs on the main network
   * (OSRM's rule for tiny components, made direction-aware: a first stop on a one-way road that
   * leaves an extract is fine, a last stop there is not), also the nearest road within
   * maxDistance that can. The router uses that one unless every stop is in the same tiny
   * component, so a point beside a fenced estate still gets a route and a point on a carriageway
   * that only leaves the map is not moved to the opposite one.
   */
  snapChoice(latitude: number, longitude: number, options: SnapOptions = {}): SnapChoice {
    const nearest = this.snap(latitude, longitude, options);
    const choice: SnapChoice = { nearest, component: this.roadComponent[nearest.road] };
    const role = options.role ?? 'via';
    if (this.servesRole(nearest.road, role)) return choice;
    const accept = options.accept;
    try {
      choice.big = this.snap(latitude, longitude, { ...options, accept: (r) => this.servesRole(r, role) && (!accept || accept(r)) });
    } catch (err) {
      if (!(err instanceof DetourError && err.code === ErrorCode.POINT_NOT_ROUTABLE)) throw err;
    }
    return choice;
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
    const g = this.graph;
    const kx = cosLatitude(lat);
    let best: Snap | null = null;
    for (const k of candidates) {
      const road = this.segmentRoad[k];
      if (accept && !accept(road)) continue;
      const i = this.segmentOfRoad[k];
      const aLat = g.roadPointLat(road, i), aLon = g.roadPointLon(road, i);
      const bLat = g.roadPointLat(road, i + 1), bLon = g.roadPointLon(road, i + 1);
      // Project in a local equirectangular frame centred on the query point.
      const ax = (aLon - lon) * kx, ay = aLat - lat;
      const bx = (bLon - lon) * kx, by = bLat - lat;
      const dx = bx - ax, dy = by - ay;
      const len2 = dx * dx + dy * dy;
      let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const sLat = aLat + t * (bLat - aLat);
      const sLon = aLon + t * (bLon - aLon);
      const distance = haversineMetres(lat, lon, sLat, sLon);
      if (!best || distance < best.distance) {
        best = { road, segment: i, t, latitude: sLat, longitude: sLon, offset: 0, distance };
      }
    }
    if (best) best.offset = this.offsetAlongRoad(best.road, best.segment, best.t);
    return best;
  }

  /** Metres along a road from its first point to fraction t of its segment `segment`. */
  offsetAlongRoad(road: number, segment: number, t: number): number {
    const g = this.graph;
    // Summed in the same order as the road length, so the last point's offset equals it exactly.
    let offset = 0;
    for (let j = 0; j < segment; j++) {
      offset += haversineMetres(g.roadPointLat(road, j), g.roadPointLon(road, j), g.roadPointLat(road, j + 1), g.roadPointLon(road, j + 1));
    }
    const seg = haversineMetres(
      g.roadPointLat(road, segment), g.roadPointLon(road, segment),
      g.roadPointLat(road, segment + 1), g.roadPointLon(road, segment + 1),
    );
    return Math.min(offset + t * seg, g.roadLength[road]);
  }
}
