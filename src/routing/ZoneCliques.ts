import type { CalculatedZone } from '../zones/calculateZone.js';
import { softCostPerMetre } from '../zones/Zone.js';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import type { PenalisedCellCliques } from '../hierarchy/CellOverlay.js';
import type { BlockedCellCliques, PathSearch } from './PathSearch.js';

/**
 * Zones' customized cells for one router's engine (Router.prepareZones): each zone's small cells
 * with cliques around its roads, the cells two or more zones share customized for exactly those
 * zones, and the big cells holding them; kept least recently used first, within a byte bound and
 * MAX_CUSTOMIZED_ZONES zone objects. Routes cross what is kept and walk the rest, exact either way.
 */

export const DEFAULT_ZONE_CLIQUE_BYTES = 128 * 2 ** 20;

/** A zone set's customized cells besides each zone's own: the small cells two or more share, and the big cells holding theirs. */
export interface ZoneSetCliques {
  shared: BlockedCellCliques[];
  big: BlockedCellCliques[];
}
/** A route without zones: no cells of a set (prepare() fills only the object it makes). */
export const NO_ZONE_SET: ZoneSetCliques = { shared: [], big: [] };

/**
 * Most small cells a zone's customization recomputes (Router.prepareZones): a 1-5 km zone touches
 * 2-3 cells of 2,048 nodes (about 9 ms for both metrics on the 5M country); a zone over a whole
 * region would cost a rebuild of the overlay, and its inner cells, all roads blocked, cost a
 * search little when open.
 */
export const MAX_CUSTOMIZED_CELLS = 32;
/**
 * Bytes counted per kept entry besides its arrays (its key, map entry and objects), so entries of
 * a few bytes (a big cell's clique of 4 x 4) are bounded by zoneCliqueBytes too.
 */
const ENTRY_OVERHEAD_BYTES = 256;
/** Most zones Router.prepareZones keeps (it holds the zone objects: a bound on what it keeps alive besides the bytes). */
export const MAX_CUSTOMIZED_ZONES = 4096;

/** A zone's kept cliques: a HARD zone's around its roads, a SOFT zone's charging its cost per metre on them. */
type KeptCliques = BlockedCellCliques | PenalisedCellCliques;

function isPenalised(c: KeptCliques): c is PenalisedCellCliques {
  return 'costPerMetre' in c;
}

function cliqueBytes(c: KeptCliques | null | undefined): number {
  return ENTRY_OVERHEAD_BYTES + (c ? c.cells.byteLength + c.first.byteLength + c.duration.byteLength + c.distance.byteLength : 0);
}

/** What a key of Router's kept cliques names: a zone, a cell zones share, or a big cell (cellKey's 'B'). */
function kindOf(key: CalculatedZone | string): 'zones' | 'sharedCells' | 'bigCells' {
  return typeof key !== 'string' ? 'zones' : key.startsWith('B') ? 'bigCells' : 'sharedCells';
}

/** The zone ids a shared or big cell's key names (cellKey). */
function idsOf(key: string): number[] {
  return key.slice(key.indexOf(':') + 1).split(',').map(Number);
}

/** Runs `make` with a per-road mask that has the zones' roads set (the router's scratch mask). */
export type WithZoneRoads = <T>(zones: readonly CalculatedZone[], make: (mask: Uint8Array) => T) => T;

export class ZoneCliques {
  /**
   * Per zone, its cells' cliques around its roads (prepareZones), null when the engine has none or
   * the zone touches too many cells; and per cell several zones share, and per big cell holding
   * zones' customized cells, under a string key naming the cell and those zones (cellKey), its
   * cliques around all their roads. Least recently used
   * first, evicted past zoneCliqueBytes or MAX_CUSTOMIZED_ZONES zone objects.
   */
  private readonly zoneCliques = new Map<CalculatedZone | string, KeptCliques | null>();
  /** Per zone object, an id for the keys of the cells several zones share (sharedKey), kept in the same map. */
  private readonly zoneIds = new WeakMap<CalculatedZone, number>();
  private nextZoneId = 0;
  /** Per zone id, the keys of the shared and big cells kept for sets naming it (forget lets them go with it). */
  private readonly keysByZoneId = new Map<number, Set<string>>();
  private zoneCliqueBytesHeld = 0;
  /** Zone objects among zoneCliques' keys (the rest are shared cells' keys, which hold no zone). */
  private zonesHeld = 0;
  /** zoneCliques' entries with cliques, by kind (preparedZones, read by every health check). */
  private readonly cliquesHeld = { zones: 0, sharedCells: 0, bigCells: 0 };
  private readonly zoneCliqueBytes: number;
  /** The sets prepare() customized for, by key (preparedSets). */
  private readonly sets = new Map<string, CalculatedZone[]>();


  /**
   * `softZones`: SOFT zones get cliques charging their cost (penalise), for a router over the
   * graph's own times and roads (a vehicle class's would also need its closed roads closed there).
   */
  constructor(
    private readonly graph: HierarchyGraph, private readonly search: PathSearch, zoneCliqueBytes: number,
    private readonly withZoneRoads: WithZoneRoads, private readonly softZones = false,
  ) {
    this.zoneCliqueBytes = zoneCliqueBytes;
  }

  /** A HARD zone's own cliques, when kept. */
  ofZone(zone: CalculatedZone): BlockedCellCliques | undefined {
    const c = this.zoneCliques.get(zone);
    return c && !isPenalised(c) ? c : undefined;
  }

  /** A SOFT zone's penalised cliques, when kept. */
  ofSoftZone(zone: CalculatedZone): PenalisedCellCliques | undefined {
    const c = this.zoneCliques.get(zone);
    return c && isPenalised(c) ? c : undefined;
  }

  /** Lets a zone's cliques go (its zone was deleted or replaced), with those of the shared and big cells made for sets naming it. */
  forget(zone: CalculatedZone): void {
    if (this.zoneCliques.has(zone)) this.remove(zone);
    const id = this.zoneIds.get(zone);
    const keys = id === undefined ? undefined : this.keysByZoneId.get(id);
    if (keys) for (const key of keys) this.remove(key);
    for (const [key, set] of this.sets) if (set.includes(zone)) this.sets.delete(key);
  }

  /**
   * The zone sets prepare() customized for, oldest first (at most MAX_CUSTOMIZED_ZONES, none
   * naming a zone forgotten since): what a router made later (a vehicle class's) prepares again,
   * set by set, so its shared and big cells are those of the same sets.
   */
  get preparedSets(): CalculatedZone[][] {
    return [...this.sets.values()];
  }

  /** Zones, shared cells and big cells with cliques kept, and their bytes. */
  get held(): { zones: number; sharedCells: number; bigCells: number; bytes: number } {
    return { ...this.cliquesHeld, bytes: this.zoneCliqueBytesHeld };
  }

  /**
   * Whether prepare may customize cells for the zone: the engine customizes, cliques may be
   * kept, and the zone is calculated on this graph with roads to block (a scheduled one's cliques
   * serve legs during which it stays active), or to charge (a SOFT one, with `softZones`).
   */
  canCustomize(zone: CalculatedZone): boolean {
    const soft = softCostPerMetre(zone.zone) !== undefined;
    return (soft ? this.softZones && this.search.penalise !== undefined : this.search.customize !== undefined) && this.zoneCliqueBytes > 0
      && zone.roadCount === this.graph.roadCount && zone.roads.length > 0 && zone.status.name === 'CALCULATED';
  }

  /**
   * prepareZones' work, customizing at most `maxCells` cells (0: only looks up what is held);
   * returns the cliques of the zones' shared cells and big cells it holds, for the search.
   */
  prepare(zones: readonly CalculatedZone[], maxCells: number): ZoneSetCliques {
    const out: ZoneSetCliques = { shared: [], big: [] };
    const search = this.search;
    const customize = search.customize?.bind(search), penalise = search.penalise?.bind(search);
    if (!customize || this.zoneCliqueBytes <= 0) return out;
    if (maxCells > 0 && zones.length > 0) this.remember(zones);
    const held = this.zoneCliques;
    // Each zone's own cliques as this call found or made them: the shared and big cells below are
    // built on them, even where a tight byte bound drops some from `held` meanwhile.
    const own = new Map<CalculatedZone, BlockedCellCliques>();
    const ownOf = (z: CalculatedZone) => own.get(z);
    let cells = 0;
    for (const z of zones) {
      const known = held.get(z);
      if (known !== undefined) { held.delete(z); held.set(z, known); if (known && !isPenalised(known)) own.set(z, known); continue; } // now the most recently used
      if (!this.canCustomize(z) || cells >= maxCells) continue;
      // A SOFT zone's cells charge its cost (routes cross them); it takes no part in the shared and big cells below.
      const cost = softCostPerMetre(z.zone);
      const cliques = cost !== undefined
        ? this.withZoneRoads([z], (mask) => penalise!(z.roads, undefined, mask, cost, MAX_CUSTOMIZED_CELLS))
        : this.withZoneRoads([z], (mask) => customize(z.roads, mask, MAX_CUSTOMIZED_CELLS));
      this.keep(z, cliques);
      if (cliques && !isPenalised(cliques)) own.set(z, cliques);
      cells += cliques?.cells.length ?? 0;
    }
    // Cells two or more of these zones touch: customized for those zones together, once per set.
    const customizeCells = this.search.customizeCells?.bind(this.search);
    if (customizeCells && zones.length >= 2) {
      for (const [cell, members] of this.sharedCells(zones, ownOf)) {
        const key = this.cellKey('', cell, members);
        let cliques = this.cellCliques(key);
        if (cliques !== undefined) { held.delete(key); held.set(key, cliques); }
        else if (cells < maxCells) {
          this.keep(key, (cliques = this.withZoneRoads(members, (mask) => customizeCells(Uint32Array.of(cell), mask)) ?? null));
          cells++;
        }
        if (cliques) out.shared.push(cliques);
      }
    }
    // Big cells holding their customized cells: customized for exactly the zones in each, once per
    // such set (a cell several zones share walked or crossed inside it alike: the big clique is exact).
    const customizeBigCells = this.search.customizeBigCells?.bind(this.search);
    if (!customizeBigCells) return out;
    for (const [big, members] of this.bigCells(zones, ownOf)) {
      const key = this.cellKey('B', big, members);
      let cliques = this.cellCliques(key);
      if (cliques !== undefined) { held.delete(key); held.set(key, cliques); }
      else if (cells < maxCells) {
        const lists = members.map((z) => own.get(z)!);
        cliques = this.withZoneRoads(members, (mask) => customizeBigCells(Uint32Array.of(big), mask, lists, this.sharedCliquesOf(members, ownOf))) ?? null;
        this.keep(key, cliques);
        cells++;
      }
      if (cliques) out.big.push(cliques);
    }
    return out;
  }

  /** A shared or big cell's kept cliques (only zone keys hold penalised ones), null where none could be made. */
  private cellCliques(key: string): BlockedCellCliques | null | undefined {
    return this.zoneCliques.get(key) as BlockedCellCliques | null | undefined;
  }

  /** Records a set prepare() customized for (preparedSets), once, dropping the oldest past MAX_CUSTOMIZED_ZONES sets. */
  private remember(zones: readonly CalculatedZone[]): void {
    const key = this.cellKey('S', 0, zones);
    this.sets.delete(key);
    this.sets.set(key, [...zones]);
    if (this.sets.size > MAX_CUSTOMIZED_ZONES) this.sets.delete(this.sets.keys().next().value!);
  }

  /** Keeps customized cliques as the most recently used, dropping the least recently used past the bounds. */
  private keep(key: CalculatedZone | string, cliques: KeptCliques | null | undefined): void {
    const held = this.zoneCliques;
    held.set(key, cliques ?? null);
    this.zoneCliqueBytesHeld += cliqueBytes(cliques);
    if (typeof key !== 'string') this.zonesHeld++;
    else for (const id of idsOf(key)) this.keysByZoneId.set(id, (this.keysByZoneId.get(id) ?? new Set()).add(key));
    if (cliques) this.cliquesHeld[kindOf(key)]++;
    for (const old of held.keys()) {
      if (this.zoneCliqueBytesHeld <= this.zoneCliqueBytes && this.zonesHeld <= MAX_CUSTOMIZED_ZONES) break;
      this.remove(old);
    }
  }

  /** Drops a kept entry, with its bytes and counts. */
  private remove(key: CalculatedZone | string): void {
    const c = this.zoneCliques.get(key);
    this.zoneCliques.delete(key);
    this.zoneCliqueBytesHeld -= cliqueBytes(c);
    if (c) this.cliquesHeld[kindOf(key)]--;
    if (typeof key !== 'string') {
      this.zonesHeld--;
      return;
    }
    for (const id of idsOf(key)) {
      const keys = this.keysByZoneId.get(id);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByZoneId.delete(id);
    }
  }

  /** The cells two or more of the zones' customized cells (ownOf) share, with those zones (each once). */
  private sharedCells(zones: readonly CalculatedZone[], ownOf: (z: CalculatedZone) => BlockedCellCliques | undefined): Map<number, CalculatedZone[]> {
    const byCell = this.zonesByCell(zones, ownOf, (cell) => cell);
    for (const [cell, members] of byCell) if (members.length < 2) byCell.delete(cell);
    return byCell;
  }

  /** The big cells the zones' customized cells (ownOf) lie in, with those zones (each once). */
  private bigCells(zones: readonly CalculatedZone[], ownOf: (z: CalculatedZone) => BlockedCellCliques | undefined): Map<number, CalculatedZone[]> {
    const bigCellOf = this.search.bigCellOf?.bind(this.search);
    return bigCellOf ? this.zonesByCell(zones, ownOf, bigCellOf) : new Map();
  }

  /** Per cell `cellOf` gives the zones' customized small cells (ownOf; none where it gives undefined), those zones, each once. */
  private zonesByCell(
    zones: readonly CalculatedZone[], ownOf: (z: CalculatedZone) => BlockedCellCliques | undefined, cellOf: (smallCell: number) => number | undefined,
  ): Map<number, CalculatedZone[]> {
    const byCell = new Map<number, CalculatedZone[]>();
    const seen = new Set<CalculatedZone>();
    for (const z of zones) {
      const own = ownOf(z);
      if (!own || seen.has(z)) continue;
      seen.add(z);
      for (const small of own.cells) {
        const cell = cellOf(small);
        if (cell === undefined) continue;
        const members = byCell.get(cell);
        if (!members) byCell.set(cell, [z]);
        else if (members[members.length - 1] !== z) members.push(z);
      }
    }
    return byCell;
  }

  /** A shared or big cell's key: its level's prefix, the cell and its zones' ids, ascending. */
  private cellKey(level: '' | 'B' | 'S', cell: number, zones: readonly CalculatedZone[]): string {
    const ids = zones.map((z) => {
      let id = this.zoneIds.get(z);
      if (id === undefined) this.zoneIds.set(z, (id = this.nextZoneId++));
      return id;
    });
    return `${level}${cell}:${ids.sort((a, b) => a - b).join(',')}`;
  }

  /** The customized cliques of the cells the zones (with cliques `ownOf`) share, where prepareZones made them for exactly those zones. */
  private sharedCliquesOf(zones: readonly CalculatedZone[], ownOf: (z: CalculatedZone) => BlockedCellCliques | undefined): BlockedCellCliques[] {
    const out: BlockedCellCliques[] = [];
    if (zones.length < 2) return out;
    for (const [cell, members] of this.sharedCells(zones, ownOf)) {
      const cliques = this.cellCliques(this.cellKey('', cell, members));
      if (cliques) out.push(cliques);
    }
    return out;
  }
}
