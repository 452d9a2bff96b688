/**
 * Worker thread for large zones: works on the caller's graph and road index through
 * SharedArrayBuffers sent once at start (nothing is copied or rebuilt). It calculates zones
 * (given as a Zone, or as the JSON text of a stored body, parsed here) and checks zone bodies
 * sent as JSON text, so a 100,000-vertex zone never occupies the caller's event loop.
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads';
import type { PreparedPolygonFields } from '../geo/PreparedPolygon.js';
import { RoadGraph, type GraphIndexes, type GraphMeta, type RoadGraphArrays } from '../graph/RoadGraph.js';
import { calculateZone } from './calculateZone.js';
import { RoadIndex } from './RoadIndex.js';
import { storedZone } from './validateZone.js';
import { zoneRules, zoneStatus, type Zone, type ZoneInput } from './Zone.js';
import { checkZoneJsonToZone } from './zoneJson.js';
import { lowerThreadPriority } from '../workerThread.js';

/** What ZoneCalculator posts to a new zone worker. */
export interface ZoneWorkerData {
  /** The graph's arrays, on SharedArrayBuffers. */
  arrays: RoadGraphArrays;
  meta: GraphMeta;
  /** The graph's search indexes, the road index among them (adopted by RoadIndex.for, not built again). */
  indexes: GraphIndexes;
}

/** A request: calculate a zone, calculate a stored body's JSON text, or check a body's JSON text. */
export type ZoneWorkerRequest = { id: number } & ({ zone: Zone } | { zoneJson: string } | { checkJson: string });

if (!isMainThread && parentPort) {
  // Background work: the caller's event loop (trips, /health) goes first on a busy machine.
  lowerThreadPriority();
  const { arrays, meta, indexes } = workerData as ZoneWorkerData;
  const graph = new RoadGraph(arrays, meta, indexes);
  // Adopted now: a stored index of another graph fails here, not inside the first zone.
  RoadIndex.for(graph);
  const port = parentPort;
  // The body last checked, as stored: a zone is calculated right after it is stored, so its
  // text (compared here, not parsed again) usually arrives next.
  let lastChecked: { json: string; zone: Zone } | undefined;
  port.on('message', (request: ZoneWorkerRequest) => {
    const { id } = request;
    if ('checkJson' in request) {
      const { checked, zone } = checkZoneJsonToZone(request.checkJson);
      lastChecked = checked.ok && zone ? { json: checked.json, zone } : undefined;
      // A body sent as it is stored (the usual JSON.stringify of a client) does not travel back.
      const sameText = checked.ok && checked.json === request.checkJson;
      port.postMessage({ id, checked: sameText ? { ...checked, json: '' } : checked, sameText });
      return;
    }
    let zone: Zone;
    try {
      zone = 'zone' in request ? request.zone : lastChecked?.json === request.zoneJson ? lastChecked.zone : storedZone(JSON.parse(request.zoneJson) as ZoneInput);
      lastChecked = undefined;
    } catch (err) {
      port.postMessage({ id, status: zoneStatus('CALCULATION_ERROR', `the stored zone is not valid: ${(err as Error).message}`) });
      return;
    }
    const result = calculateZone(graph, zone);
    const reply = {
      id,
      status: result.status,
      roads: result.roads,
      roadMetresInside: result.roadMetresInside,
      edgeCount: result.edgeCount,
      metresInside: result.metresInside,
      blockedLength: result.blockedLength,
      millis: result.millis,
      // A zone from JSON text exists only here: its polygons go back prepared (typed arrays).
      ...('zoneJson' in request ? {
        polygonNames: zone.polygons.map((p) => p.name), prepared: result.prepared.map((p): PreparedPolygonFields => ({ ...p })), rules: zoneRules(zone),
      } : {}),
    };
    const transfer = [result.roads.buffer, result.roadMetresInside.buffer, ...('zoneJson' in request ? result.prepared.flatMap((p) => [p.xy.buffer, p.next.buffer, p.rowStart.buffer, p.rowEdges.buffer]) : [])];
    port.postMessage(reply, transfer as ArrayBuffer[]);
  });
}
