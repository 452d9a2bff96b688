import { DetourError, ErrorCode } from '../errors.js';
import { assertValidLatLon, fromE7 } from '../geo/coordinates.js';
import { cosLatitude, haversineMetres, METRES_PER_DEGREE } from '../geo/haversine.js';
import { RoadFlag } from './carProfile.js';
import { roadComponents, roadEntryNodes, roadExitNode } from './junctionNodes.js';
import { reachability, stronglyConnectedComponents } from './components.js';
import { roadBoxes, type RoadBoxes } from './roadBoxes.js';
import type { RoadGraph } from './RoadGraph.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';

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
  /**
   * snapChoice: roads to prefer (a vehicle's legal roads): the nearest accepted road for which this
   * is true, when one lies within maxDistance, else the nearest accepted road.
   */
  prefer?: (road: number) => boolean;
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
  /** Component of the nearest road when it lies outside the big components (both its ends in one tiny component), else -1. */
  component: number;
  /**
   * Set when the nearest road cannot serve the stop's role (a first stop that cannot drive into
   * the main network, a last stop it cannot reach): the nearest road in range that can, if any.
   */
  big?: Snap;
}

/** SnapIndex's per-road bits (GraphIndexes.snapRoadBits). */
const IN_BIG = 1, LEADS_TO_BIG = 2, REACHED_FROM_BIG = 4; // as GraphIndexes.snapRoadBits says


/**
 * Snapping: the point is projected onto the nearest road segment, not merely the nearest node,
 * searching boxes of growing size. Candidates come from the graph's tree of road boxes
 * (roadBoxes, the one zone calculation uses too), and every segment of a candidate road whose box
 * meets the search box is measured; of equally near segments the lowest (road, segment) wins, so
 * the answer does not depend on the tree's layout. The tree over every segment this replaced
 * took 35 bytes per directed edge on the 5M-node country (the largest index in memory) and
 * snapped no faster there (snapChoice p50 15 µs against 11 µs, the same answers).
 * The per-road facts (role bits, and the component of the roads outside the big components:
 * only they need it) live in graph.indexes with the tree: loaded from the graph file when it
 * carries them, else built here and attached, so a saved graph carries them (about a byte per
 * road, on SharedArrayBuffers a worker can use without building its own; a component per road
 * took 4 more, 2.3 bytes per directed edge on the 5M-node country).
 */
export class SnapIndex {
  private static readonly cache = new WeakMap<RoadGraph, SnapIndex>();
  private readonly roads: RoadBoxes;
  /** The roads outside the big components, ascending, and each one's component when both its ends share one, else -1. */
  private readonly tinyRoads: Uint32Array;
  private readonly tinyComponent: Int32Array;
  /** Per road: in a big component; can drive into one; can be reached from one (the bits above). */
  private readonly roadBits: Uint8Array;

  /** The snap index of a graph (one per graph, see the class comment). */
  static for(graph: RoadGraph): SnapIndex {
    let index = SnapIndex.cache.get(graph);
    if (!index) SnapIndex.cache.set(graph, (index = new SnapIndex(graph)));
    return index;
  }

  /** Adopts graph.indexes' road tree and per-road facts when there (GRAPH_CORRUPT when the tree does not fit), else builds and attaches them. */
  constructor(private readonly graph: RoadGraph) {
    this.roads = roadBoxes(graph);
    let { snapTinyRoads, snapTinyComponent, snapRoadBits } = graph.indexes;
    if (!snapTinyRoads || !snapTinyComponent || !snapRoadBits) {
      ({ tinyRoads: snapTinyRoads, tinyComponent: snapTinyComponent, bits: snapRoadBits } = roadFacts(graph));
      Object.assign(graph.indexes, { snapTinyRoads, snapTinyComponent, snapRoadBits });
    }
    this.tinyRoads = snapTinyRoads;
    this.tinyComponent = snapTinyComponent;
    this.roadBits = snapRoadBits;
  }

  /** The road's strongly connected component when it lies outside the big components with both ends in one, else -1. */
  tinyComponentOf(road: number): number {
    const roads = this.tinyRoads;
    let lo = 0, hi = roads.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (roads[mid] < road) lo = mid + 1;
      else hi = mid;
    }
    return lo < roads.length && roads[lo] === road ? this.tinyComponent[lo] : -1;
  }

  /** True when a road's ends both lie in a big strongly connected component. */
  inBigComponent(road: number): boolean {
    return (this.roadBits[road] & IN_BIG) !== 0;
  }

  /** True when a stop on the road can serve `role`: drive into a big component (first), be reached from one (last), or both (via). */
  servesRole(road: number, role: StopRole = 'via'): boolean {
    const bits = this.roadBits[road];
    if (bits & IN_BIG) return true;
    const leaves = (bits & LEADS_TO_BIG) !== 0, arrives = (bits & REACHED_FROM_BIG) !== 0;
    return role === 'first' ? leaves : role === 'last' ? arrives : leaves && arrives;
  }

  /**
   * Snaps the stops of a route: each to its nearest road, unless a stop there cannot leave
   * towards (the first), be reached from (the last) or both (a via) the main network; then to the
   * nearest road in range that can (snapChoice). Stops all on one tiny strongly connected
   * component stay there (they can route inside it). `labels` name the stops in errors.
   */
  snapStops(points: ReadonlyArray<{ latitude: number; longitude: number }>, labels: readonly string[], maxDistance?: number, prefer?: (road: number) => boolean): Snap[] {
    const last = points.length - 1;
    const choices = points.map((p, i) => this.snapChoice(p?.latitude, p?.longitude, {
      maxDistance, label: labels[i], role: i === 0 ? 'first' : i === last ? 'last' : 'via', prefer,
    }));
    const first = choices[0].component;
    const allInOneTiny = first >= 0 && choices.every((c) => c.component === first && !this.inBigComponent(c.nearest.road));
    return choices.map((c) => (allInOneTiny || !c.big ? c.nearest : c.big));
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
    const { prefer, accept: given } = options;
    let nearest: Snap | undefined;
    if (prefer) {
      try {
        nearest = this.snap(latitude, longitude, { ...options, accept: (r) => prefer(r) && (!given || given(r)) });
      } catch (err) {
        if (!(err instanceof DetourError && err.code === ErrorCode.POINT_NOT_ROUTABLE)) throw err;
      }
    }
    nearest ??= this.snap(latitude, longitude, options);
    const choice: SnapChoice = { nearest, component: this.tinyComponentOf(nearest.road) };
    const role = options.role ?? 'via';
    if (this.servesRole(nearest.road, role)) return choice;
    const accept = prefer ? (r: number) => prefer(r) && (!given || given(r)) : given;
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
    const minX = lon - dLon, minY = lat - dLat, maxX = lon + dLon, maxY = lat + dLat;
    // Every road of the boxes met: the segment test below skips the roads that miss the search box.
    const candidates = this.roads.search(minX, minY, maxX, maxY, false);
    const g = this.graph;
    const kx = cosLatitude(lat);
    const { roadShapeStart, shapeLatE7: shapeLat, shapeLonE7: shapeLon, nodeLatE7: nodeLat, nodeLonE7: nodeLon, roadFrom, roadTo } = g;
    let best: Snap | null = null;
    let bestRoad = 0, bestSegment = 0;
    for (const road of candidates) {
      if (accept && !accept(road)) continue;
      // Point k of the road: node roadFrom, the shape points, node roadTo (RoadGraph.roadPointLat).
      const s0 = roadShapeStart[road], last = roadShapeStart[road + 1] - s0 + 1;
      let aLat = fromE7(nodeLat[roadFrom[road]]), aLon = fromE7(nodeLon[roadFrom[road]]);
      for (let i = 0; i < last; i++) {
        const bLat = fromE7(i + 1 === last ? nodeLat[roadTo[road]] : shapeLat[s0 + i]);
        const bLon = fromE7(i + 1 === last ? nodeLon[roadTo[road]] : shapeLon[s0 + i]);
        // A segment whose box misses the search box is farther than the radius.
        if ((aLon < minX && bLon < minX) || (aLon > maxX && bLon > maxX) || (aLat < minY && bLat < minY) || (aLat > maxY && bLat > maxY)) {
          aLat = bLat; aLon = bLon;
          continue;
        }
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
        if (!best || distance < best.distance || (distance === best.distance && (road < bestRoad || (road === bestRoad && i < bestSegment)))) {
          best = { road, segment: i, t, latitude: sLat, longitude: sLon, offset: 0, distance };
          bestRoad = road;
          bestSegment = i;
        }
        aLat = bLat; aLon = bLon;
      }
    }
    if (best) best.offset = this.offsetAlongRoad(best.road, best.segment, best.t);
    return best;
  }

  /** Metres along a road from its first point to fraction t of its segment `segment`. */
  offsetAlongRoad(road: number, segment: number, t: number): number {
    const g = this.graph;
    // The road's length is its segments' sum rounded up to whole centimetres (COST_STEP): its
    // last point is at the length itself, so a snap there has nothing left to drive on the road.
    if (t === 1 && segment === g.roadPointCount(road) - 2) return g.roadMetres(road);
    let offset = 0;
    for (let j = 0; j < segment; j++) {
      offset += haversineMetres(g.roadPointLat(road, j), g.roadPointLon(road, j), g.roadPointLat(road, j + 1), g.roadPointLon(road, j + 1));
    }
    const seg = haversineMetres(
      g.roadPointLat(road, segment), g.roadPointLon(road, segment),
      g.roadPointLat(road, segment + 1), g.roadPointLon(road, segment + 1),
    );
    return Math.min(offset + t * seg, g.roadMetres(road));
  }
}

/** Per road its SnapIndex bits; the roads outside the big components and their component (or -1). */
function roadFacts(graph: RoadGraph): { tinyRoads: Uint32Array; tinyComponent: Int32Array; bits: Uint8Array } {
  const roads = graph.roadCount;
  const { component, size } = stronglyConnectedComponents(graph);
  const largest = size.reduce((a, b) => Math.max(a, b), 0);
  const bigFrom = Math.min(TINY_COMPONENT_NODES, Math.ceil(largest / 2));
  const roadComponent = new Int32Array(roads);
  const bits = new Uint8Array(new SharedOrPlainBuffer(roads));
  const byEdges = roadComponents(graph, component, size);
  const bigNode = new Uint8Array(graph.nodeCount);
  for (let v = 0; v < graph.nodeCount; v++) if (size[component[v]] >= bigFrom) bigNode[v] = 1;
  const leadsToBig = reachability(graph, bigNode, true), reachedFromBig = reachability(graph, bigNode, false);
  for (let r = 0; r < roads; r++) {
    // As the router leaves and enters a snapped road (junction copies included): by its ends, in its directions.
    const f = graph.roadFlags[r];
    const exits = [...(f & RoadFlag.FORWARD ? [roadExitNode(graph, r, false)] : []), ...(f & RoadFlag.BACKWARD ? [roadExitNode(graph, r, true)] : [])];
    const entries = [...(f & RoadFlag.FORWARD ? roadEntryNodes(graph, r, false) : []), ...(f & RoadFlag.BACKWARD ? roadEntryNodes(graph, r, true) : [])];
    let b = 0;
    if (exits.some((v) => leadsToBig[v])) b |= LEADS_TO_BIG;
    if (entries.some((v) => reachedFromBig[v])) b |= REACHED_FROM_BIG;
    const c = byEdges[r];
    if (c >= 0) {
      roadComponent[r] = c;
      if (size[c] >= bigFrom) b |= IN_BIG;
    } else {
      roadComponent[r] = -1;
      if (size[component[graph.roadFrom[r]]] >= bigFrom && size[component[graph.roadTo[r]]] >= bigFrom) b |= IN_BIG;
    }
    bits[r] = b;
  }
  let tiny = 0;
  for (let r = 0; r < roads; r++) if ((bits[r] & IN_BIG) === 0) tiny++;
  const tinyRoads = new Uint32Array(new SharedOrPlainBuffer(4 * tiny));
  const tinyComponent = new Int32Array(new SharedOrPlainBuffer(4 * tiny));
  for (let r = 0, i = 0; r < roads; r++) {
    if ((bits[r] & IN_BIG) !== 0) continue;
    tinyRoads[i] = r;
    tinyComponent[i++] = roadComponent[r];
  }
  return { tinyRoads, tinyComponent, bits };
}
