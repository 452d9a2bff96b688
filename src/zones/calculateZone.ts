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
  /** Per road of the graph, 1 when the zone blocks it (both directions). Empty on error. */
  blockedRoads: Uint8Array;
  /** Ids of the blocked roads, ascending. */
  roads: Uint32Array;
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

/**
 * Finds the roads a zone blocks: the rbush road index gives the roads whose box meets each
 * polygon's box, the WASM kernels keep those whose geometry lies inside, crosses or touches the
 * polygon. Both directions of a blocked road are blocked, and a road partly inside is blocked whole
 * (as Valhalla and GraphHopper do). Never throws: a failure is status CALCULATION_ERROR.
 */
export function calculateZone(graph: RoadGraph, zone: Zone, kernels?: GeometryKernels): CalculatedZone {
  const started = performance.now();
  const blockedRoads = new Uint8Array(graph.roadCount);
  const prepared = zone.polygons.map((p) => new PreparedPolygon(p.rings));
  try {
    const k = kernels ?? GeometryKernels.load();
    const index = RoadIndex.for(graph);
    let metresInside = 0;
    for (const poly of prepared) {
      const candidates = index.roadsInBox(poly.minX, poly.minY, poly.maxX, poly.maxY);
      if (candidates.length === 0) continue;
      const lines = candidates.map((r) => index.polyline(r));
      const start = new Int32Array(candidates.length + 1);
      for (let i = 0; i < lines.length; i++) start[i + 1] = start[i] + lines[i].length / 2;
      const points = new Float64Array(start[lines.length] * 2);
      lines.forEach((l, i) => points.set(l, start[i] * 2));
      const touching = k.withPolygon(poly, (bound) => bound.classifyPolylines(points, start));
      for (let i = 0; i < candidates.length; i++) {
        if (!touching[i]) continue;
        // A road in two overlapping polygons of one zone is measured in the first only.
        if (!blockedRoads[candidates[i]]) metresInside += lengthInside(poly, lines[i]);
        blockedRoads[candidates[i]] = 1;
      }
    }
    const roads: number[] = [];
    let edgeCount = 0;
    let blockedLength = 0;
    for (let r = 0; r < graph.roadCount; r++) {
      if (!blockedRoads[r]) continue;
      roads.push(r);
      blockedLength += graph.roadLength[r];
      if (graph.roadFlags[r] & RoadFlag.FORWARD) edgeCount++;
      if (graph.roadFlags[r] & RoadFlag.BACKWARD) edgeCount++;
    }
    return {
      zone,
      status: zoneStatus(roads.length > 0 ? 'CALCULATED' : 'CALCULATED_WITHOUT_ROADS'),
      blockedRoads,
      roads: Uint32Array.from(roads),
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
      blockedRoads: new Uint8Array(0),
      roads: new Uint32Array(0),
      edgeCount: 0,
      metresInside: 0,
      blockedLength: 0,
      prepared,
      millis: performance.now() - started,
    };
  }
}
