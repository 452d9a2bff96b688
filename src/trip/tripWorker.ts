/**
 * Worker thread for trips: a Router over the caller's shared graph, the zones the caller
 * registered (kept here by key, so the router's customized cells of each are made once and
 * reused by every trip naming it), and calculateTrip, answering with the solution's JSON text.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { reviveZone, routerOnSharedData, threadError } from '../routing/routerThread.js';
import type { Router } from '../routing/Router.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { calculateTrip } from './calculateTrip.js';
import type { TripThreadMessage, TripThreadReply, TripWorkerData } from './TripThreads.js';

/** What a trip thread does with each message, apart from the thread (tests drive it on theirs). */
export class TripThreadState {
  private readonly zones = new Map<number, CalculatedZone>();

  constructor(readonly router: Router) {}

  handle(message: TripThreadMessage): TripThreadReply {
    const router = this.router;
    switch (message.op) {
      case 'zone': {
        const zone = reviveZone(message.fields);
        this.zones.set(message.key, zone);
        try {
          if (router.canCustomize(zone)) router.prepareZones([zone]);
        } catch (err) {
          // The zone stays usable: routes walk its cells.
          return { id: message.id, prepared: router.preparedZones, error: threadError(err) };
        }
        return { id: message.id, prepared: router.preparedZones };
      }
      case 'forget': {
        const zone = this.zones.get(message.key);
        this.zones.delete(message.key);
        if (zone) router.forgetZone(zone);
        return { id: message.id, prepared: router.preparedZones };
      }
      case 'trip':
        try {
          const { request, context } = message;
          const zones = message.zones.map((z) => ('fields' in z ? reviveZone(z.fields) : this.zones.get(z.key)!));
          const solution = calculateTrip(request, { ...context, now: new Date(context.now), router, zones });
          return { id: message.id, json: JSON.stringify(solution) };
        } catch (err) {
          return { id: message.id, error: threadError(err) };
        }
    }
  }
}

if (!isMainThread && parentPort) {
  const { router, zoneCliqueBytes } = workerData as TripWorkerData;
  const state = new TripThreadState(routerOnSharedData(router, { zoneCliqueBytes }));
  const port = parentPort;
  port.on('message', (message: TripThreadMessage) => port.postMessage(state.handle(message)));
}
