import { HIGHWAY_CLASSES, RoadFlag } from '../src/graph/carProfile.js';
import { roadMillis, type RoadGraph } from '../src/graph/RoadGraph.js';

/**
 * The oracles' reading (tests and benches) of the documented speed rules (docs/VEHICLES.md "Speeds"), written here
 * from the table, not from src: heavy vehicles at most 90 km/h and 90 % of a car's speed above
 * 50 km/h, and a road's stored `maxspeed:hgv`; a preference caps the roads of its Maplink type (speedAtToll on toll roads); never
 * faster than the car. A view of the graph with those times (the oracle's Dijkstra and endpoints read it).
 */
const TYPE_OF_CLASS: Record<string, string> = {
  motorway: 'HIGHWAY', motorway_link: 'HIGHWAY', trunk: 'EXPRESSWAY', trunk_link: 'EXPRESSWAY', primary: 'MAIN_ROAD', primary_link: 'MAIN_ROAD',
  secondary: 'SECONDARY_ROAD', secondary_link: 'SECONDARY_ROAD', tertiary: 'SECONDARY_ROAD', tertiary_link: 'SECONDARY_ROAD',
};

export function oracleTimes(graph: RoadGraph, heavy: boolean, prefs: { roadType: string; speed?: number; speedAtToll?: number }[] = []): RoadGraph {
  const R = graph.roadCount, speeds = new Float32Array(R), millis = new Uint32Array(R);
  for (let r = 0; r < R; r++) {
    const car = graph.roadSpeedKmh[r], flags = graph.roadFlags[r];
    let type = flags & RoadFlag.FERRY ? 'FERRY' : TYPE_OF_CLASS[HIGHWAY_CLASSES[graph.roadClass[r]]] ?? 'LOCAL_ROAD';
    if (flags & RoadFlag.UNPAVED && ['LOCAL_ROAD', 'SECONDARY_ROAD', 'MAIN_ROAD'].includes(type)) type = `PENALIZED_${type}`;
    let v = car;
    if (heavy) { v = Math.min(v, 90, graph.roadLimits(r)?.hgvSpeedKmh ?? Infinity); if (car > 50) v = Math.min(v, 0.9 * car); }
    const p = prefs.find((x) => x.roadType === type);
    const cap = p && (flags & RoadFlag.TOLL ? p.speedAtToll ?? p.speed : p.speed);
    if (cap !== undefined) v = Math.min(v, cap);
    speeds[r] = Math.min(car, v);
    millis[r] = Math.max(graph.roadMillis[r], roadMillis(graph.roadLengthCm[r] / 100, speeds[r]));
  }
  return graph.withRoadTimes(speeds, millis);
}

/** Whether the documented rules make a vehicle heavy: trucks (hgv), buses, anything over 3.5 t. */
export function oracleHeavy(v: { type: string; accessClass: string; weightT?: number }): boolean {
  return v.accessClass === 'hgv' || v.type.startsWith('BUS_') || (v.weightT !== undefined && v.weightT > 3.5);
}
