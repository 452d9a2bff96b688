import { GeometryKernels } from '../geo/GeometryKernels.js';
import { lengthInside } from '../geo/lengthInside.js';
import { PreparedPolygon } from '../geo/PreparedPolygon.js';
import { RoadFlag } from '../graph/carProfile.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { RoadIndex } from './RoadIndex.js';
import { zoneStatus, type Zone, type ZoneStatus } from './Zone.js';

/** A zone with the roads it blocks on one graph. */
export interface CalculatedZone {
  zone: Zone;
  status: ZoneStatus;
  /**
   * Roads of the graph it was calculated on (0 on error), so a route on another graph is refused.
   * Only the blocked road ids are kept, not a mask per road: a service holds many zones.
   */
  roadCount: number;
  /** Ids of the blocked roads (both directions of each), ascending. */
  roads: Uint32Array;
  /**
   * Per blocked road (parallel to `roads`), the metres of its geometry inside the zone's polygons,
   * summed over them: a route's metres inside then cost a lookup per road, not a polygon test per
   * segment (a leg through a 100,000-vertex zone). Float32: under a millimetre per road, at 4 bytes.
   */
  roadMetresInside: Float32Array;
  /** Directed edges on the blocked roads. */
  edgeCount: number;
  /** Metres of road geometry inside the zone's polygons (each road counted once). */
  metresInside: number;
  /** Full length of the blocked roads, metres (a road partly inside is blocked whole). */
  blockedLength: number;
  /** The polygons, prepared once for the kernels and for measuring. */
  prepared: PreparedPolygon[];
  /** Milliseconds the calculation took. */
  millis: number;
}

/** The roads' polylines in one interleaved lon, lat array; road i is points start[i] .. start[i + 1]. */
function polylines(graph: RoadGraph, roads: number[]): { points: Float64Array; start: Int32Array } {
  const start = new Int32Array(roads.length + 1);
  for (let i = 0; i < roads.length; i++) start[i + 1] = start[i] + graph.roadPointCount(roads[i]);
  const points = new Float64Array(start[roads.length] * 2);
  for (let i = 0; i < roads.length; i++) {
    const r = roads[i];
    for (let k = 0, p = 2 * start[i]; k < start[i + 1] - start[i]; k++, p += 2) {
      points[p] = graph.roadPointLon(r, k);
      points[p + 1] = graph.roadPointLat(r, k);
    }
  }
  return { points, start };
}

/**
 * Finds the roads a zone blocks: the packed road index gives the roads whose box meets each
 * polygon's box, the WASM kernels keep those whose geometry lies inside, crosses or touches the
 * polygon. Both directions of a blocked road are blocked, and a road partly inside is blocked whole
 * (as Valhalla and GraphHopper do). Never throws: a failure is status CALCULATION_ERROR.
 */
export function calculateZone(graph: RoadGraph, zone: Zone, kernels?: GeometryKernels): CalculatedZone {
  const started = performance.now();
  const prepared = zone.polygons.map((p) => new PreparedPolygon(p.rings));
  try {
    const k = kernels ?? GeometryKernels.load();
    const index = RoadIndex.for(graph);
    // Blocked road ids in a set, not a mask over every road: the work stays proportional to the
    // candidate roads, whatever the graph's size.
    const blocked = new Set<number>();
    const insideOf = new Map<number, number>();
    let metresInside = 0;
    for (const poly of prepared) {
      const candidates = index.roadsInBox(poly.minX, poly.minY, poly.maxX, poly.maxY);
      if (candidates.length === 0) continue;
      const { points, start } = polylines(graph, candidates);
      const touching = k.withPolygon(poly, (bound) => bound.classifyPolylines(points, start));
      for (let i = 0; i < candidates.length; i++) {
        if (!touching[i]) continue;
        const inside = lengthInside(poly, points, start[i], start[i + 1]);
        insideOf.set(candidates[i], (insideOf.get(candidates[i]) ?? 0) + inside);
        // A road in two overlapping polygons of one zone is measured in the first only.
        if (blocked.has(candidates[i])) continue;
        metresInside += inside;
        blocked.add(candidates[i]);
      }
    }
    const roads = Uint32Array.from(blocked).sort();
    const roadMetresInside = Float32Array.from(roads, (r) => insideOf.get(r)!);
    let edgeCount = 0;
    let blockedLength = 0;
    for (let i = 0; i < roads.length; i++) {
      const r = roads[i];
      blockedLength += graph.roadMetres(r);
      if (graph.roadFlags[r] & RoadFlag.FORWARD) edgeCount++;
      if (graph.roadFlags[r] & RoadFlag.BACKWARD) edgeCount++;
    }
    return {
      zone,
      status: zoneStatus(roads.length > 0 ? 'CALCULATED' : 'CALCULATED_WITHOUT_ROADS'),
      roadCount: graph.roadCount,
      roads,
      roadMetresInside,
      edgeCount,
      metresInside,
      blockedLength,
      prepared,
      millis: performance.now() - started,
    };
  } catch (err) {
    return {
      zone,
      status: zoneStatus('CALCULATION_ERROR', (err as Error).message),
      roadCount: 0,
      roads: new Uint32Array(0),
      roadMetresInside: new Float32Array(0),
      edgeCount: 0,
      metresInside: 0,
      blockedLength: 0,
      prepared,
      millis: performance.now() - started,
    };
  }
}
