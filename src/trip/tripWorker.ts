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
import type { Vehicle } from '../routing/vehicle.js';
import type { TripThreadMessage, TripThreadReply, TripWorkerData } from './TripThreads.js';

/**
 * What a trip thread does with each message, apart from the thread (tests drive it on theirs).
 * A zone is kept at once and its cells customized later (prepareNext), one zone at a time between
 * trips, so trips posted after a burst of zones do not wait for all of them.
 */
export class TripThreadState {
  private readonly zones = new Map<number, CalculatedZone>();
  private readonly toPrepare: Array<{ id: number; key: number }> = [];
  /** Classes to prepare; those asked for by a message (`id`) are answered with what was prepared, for the other threads. */
  private readonly vehicles: Array<{ vehicle: Vehicle; id?: number }>;
  /** The vehicle class being prepared, a step per prepareNext (Router.preparingVehicle). */
  private preparing?: Generator<void, void, undefined>;
  private preparingVehicle?: { vehicle: Vehicle; id?: number };
  /** Zone sets prepared before a vehicle class got its own router, to customize for it, one per prepareNext. */
  private readonly classZones: Array<{ vehicle: Vehicle; zones: CalculatedZone[] }> = [];
  /** Vehicle classes with routers of their own so far (Router.vehicleClasses). */
  private classes = 0;

  /**
   * `vehicles`: classes to prepare (Router.preparingVehicle), after the zones waiting, a step of
   * about `stepMillis` per prepareNext.
   */
  constructor(readonly router: Router, vehicles: readonly Vehicle[] = [], private readonly stepMillis = 20) {
    this.vehicles = vehicles.map((vehicle) => ({ vehicle }));
  }

  /** The reply to a message; none for a zone, whose reply prepareNext gives once its cells are customized. */
  handle(message: TripThreadMessage): TripThreadReply | undefined {
    const router = this.router;
    switch (message.op) {
      case 'zone':
        this.zones.set(message.key, reviveZone(message.fields));
        this.toPrepare.push({ id: message.id, key: message.key });
        return undefined;
      case 'forget': {
        const zone = this.zones.get(message.key);
        this.zones.delete(message.key);
        if (zone) router.forgetZone(zone);
        return { id: message.id, prepared: router.preparedZones };
      }
      case 'vehicleHierarchies':
        try {
          router.adoptVehicleHierarchies(message.vehicle, message.hierarchies);
          this.classMade(message.vehicle);
          return { id: message.id, adopted: true, classes: router.vehicleClasses };
        } catch (err) {
          return { id: message.id, error: threadError(err) };
        }
      case 'prepareVehicle':
        this.vehicles.push({ vehicle: message.vehicle, id: message.id });
        return undefined;
      case 'vehicleRoads':
        try {
          router.adoptVehicleRoads(message.roads);
          this.classMade(message.roads.vehicle);
          return { id: message.id, adopted: true, classes: router.vehicleClasses };
        } catch (err) {
          return { id: message.id, error: threadError(err) };
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

  /** Zones kept and not customized yet (for the car or for a class's router), and vehicle classes not prepared yet. */
  get waiting(): number {
    return this.toPrepare.length + this.classZones.length + this.vehicles.length + (this.preparing ? 1 : 0);
  }

  /** When `vehicle`'s class just got a router of its own, the zones kept so far wait to be customized for it. */
  private classMade(vehicle: Vehicle): void {
    if (this.router.vehicleClasses === this.classes) return;
    this.classes = this.router.vehicleClasses;
    for (const zones of this.router.classZonesToPrepare) this.classZones.push({ vehicle, zones });
  }

  /**
   * Customizes the cells of the zone waiting longest (none if let go meanwhile), its reply; with
   * no zone waiting, takes a step of preparing the next vehicle class (no reply: it changes no answer).
   */
  prepareNext(): TripThreadReply | undefined {
    const next = this.toPrepare.shift();
    if (!next) {
      const late = this.classZones.shift();
      if (late) {
        try {
          // Let go meanwhile: nothing to do. Else its routes walk the zone's cells: as exact.
          const kept = new Set(this.zones.values());
          if (late.zones.every((z) => kept.has(z))) this.router.prepareClassZones(late.vehicle, late.zones);
        } catch { /* walked */ }
        return undefined;
      }
      // A step of the vehicle class under way (Router.preparingVehicle), or of the next one.
      if (!this.preparing) {
        this.preparingVehicle = this.vehicles.shift();
        if (this.preparingVehicle) this.preparing = this.router.preparingVehicle(this.preparingVehicle.vehicle, this.stepMillis);
      }
      const { vehicle, id } = this.preparingVehicle ?? {};
      try {
        if (this.preparing?.next().done) {
          this.preparing = undefined;
          this.classMade(vehicle!);
          if (id !== undefined) return { id, vehicleRoads: this.router.preparedVehicleRoads(vehicle!), classes: this.router.vehicleClasses };
        }
      } catch (err) {
        // Its routes walk the cells of its closed roads instead: as exact.
        this.preparing = undefined;
        if (id !== undefined) return { id, error: threadError(err) };
      }
      return undefined;
    }
    const router = this.router;
    const zone = this.zones.get(next.key);
    try {
      if (zone && router.canCustomize(zone)) router.prepareZones([zone]);
    } catch (err) {
      // The zone stays usable: routes walk its cells.
      return { id: next.id, prepared: router.preparedZones, error: threadError(err) };
    }
    return { id: next.id, prepared: router.preparedZones };
  }
}

if (!isMainThread && parentPort) {
  const { router, zoneCliqueBytes } = workerData as TripWorkerData;
  const state = new TripThreadState(routerOnSharedData(router, { zoneCliqueBytes }));
  const port = parentPort;
  let scheduled = false;
  // One zone (or a step of a vehicle class) per turn of the thread's loop: trips already posted are answered first.
  const schedule = () => {
    if (scheduled || state.waiting === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const reply = state.prepareNext();
      if (reply) port.postMessage(reply);
      schedule();
    });
  };
  port.on('message', (message: TripThreadMessage) => {
    const reply = state.handle(message);
    if (reply) port.postMessage(reply);
    schedule();
  });
  schedule();
}
