import RBush from 'rbush';
import { pointInPolygonReference, type PreparedPolygon } from '../geo/PreparedPolygon.js';
import type { CalculatedZone } from './calculateZone.js';

interface PolygonBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  zone: CalculatedZone;
  polygon: PreparedPolygon;
}

/**
 * An rbush R-tree over the polygons of calculated zones: which zones a point lies in, or which a
 * box (a leg's extent) may touch, without testing every zone.
 */
export class ZoneIndex {
  private readonly tree = new RBush<PolygonBox>();
  private readonly byName = new Map<string, PolygonBox[]>();

  constructor(zones: Iterable<CalculatedZone> = []) {
    for (const z of zones) this.add(z);
  }

  /** Adds a zone, replacing one of the same name. */
  add(zone: CalculatedZone): void {
    this.remove(zone.zone.name);
    const boxes = zone.prepared.map((polygon) => ({
      minX: polygon.minX, minY: polygon.minY, maxX: polygon.maxX, maxY: polygon.maxY, zone, polygon,
    }));
    this.tree.load(boxes);
    this.byName.set(zone.zone.name, boxes);
  }

  /** Removes a zone by name; false when there was none. */
  remove(name: string): boolean {
    const boxes = this.byName.get(name);
    if (!boxes) return false;
    for (const b of boxes) this.tree.remove(b);
    this.byName.delete(name);
    return true;
  }

  get size(): number {
    return this.byName.size;
  }

  /** Zones with a polygon whose box meets the given box (degrees). */
  zonesInBox(minX: number, minY: number, maxX: number, maxY: number): CalculatedZone[] {
    return [...new Set(this.tree.search({ minX, minY, maxX, maxY }).map((b) => b.zone))];
  }

  /** Zones containing the point (boundary included). */
  zonesAt(latitude: number, longitude: number): CalculatedZone[] {
    const hits = this.tree
      .search({ minX: longitude, minY: latitude, maxX: longitude, maxY: latitude })
      .filter((b) => pointInPolygonReference(b.polygon, longitude, latitude));
    return [...new Set(hits.map((b) => b.zone))];
  }
}
