import type { Router } from '../routing/Router.js';
import { MAX_CUSTOMIZED_ZONES } from '../routing/ZoneCliques.js';
import type { CalculatedZone } from '../zones/calculateZone.js';

/**
 * Customizes the hierarchy's cells around each newly calculated zone (Router.prepareZones) off
 * the request path: one zone per turn of the event loop, so requests keep being answered between
 * them, and the first trip naming a zone crosses its cells by their cliques instead of walking them. Zones the router would not
 * customize (Router.canCustomize: no roads, not calculated, an engine without cells) are skipped.
 * At most `capacity` zones wait (the oldest give way: the router keeps no more than
 * MAX_CUSTOMIZED_ZONES anyway); routes walk the cells of a zone that never got its turn.
 */
export class ZonePreparation {
  private readonly waiting = new Set<CalculatedZone>();
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly router: Router,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly capacity = MAX_CUSTOMIZED_ZONES,
  ) {}

  /** Queues a zone for customization (nothing for zones or engines without cells to customize). */
  add(zone: CalculatedZone): void {
    if (this.closed || this.waiting.has(zone) || !this.router.canCustomize(zone)) return;
    if (this.waiting.size >= this.capacity) this.waiting.delete(this.waiting.values().next().value!);
    this.waiting.add(zone);
    this.schedule();
  }

  /** Drops a zone (deleted, replaced or let go by the zone cache): from the queue, and its cliques from the router. */
  forget(zone: CalculatedZone): void {
    this.waiting.delete(zone);
    this.router.forgetZone(zone);
  }

  /** Zones waiting for their turn. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Drops the waiting zones and takes no more. */
  close(): void {
    this.closed = true;
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.size === 0) return;
    this.scheduled = true;
    // Unreferenced: waiting zones never keep a process alive.
    setImmediate(() => this.next()).unref();
  }

  private next(): void {
    this.scheduled = false;
    const zone = this.waiting.values().next().value;
    if (zone === undefined) return;
    this.waiting.delete(zone);
    try {
      this.router.prepareZones([zone]);
    } catch (err) {
      this.onError(err);
    }
    this.schedule();
  }
}
