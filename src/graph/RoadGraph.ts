import { unitVectors } from '../geo/chord.js';
import { fromE7 } from '../geo/coordinates.js';
import { DetourError, ErrorCode } from '../errors.js';
import { SharedOrPlainBuffer } from '../structures/sharedBuffer.js';
import { csrRow, sortedIndexOf } from './csr.js';
import { labelKeyAt, labelOfKey, type RoadLabel, type RoadLabelArrays } from './roadLabels.js';
import { limitsAt, type RoadLimits } from './vehicleLimits.js';

/** Facts about where a graph came from, stored in its file. */
export interface GraphMeta {
  /** Human-readable source, e.g. the input file name. */
  source: string;
  /** Licence / attribution text that must travel with data derived from the source. */
  attribution: string;
  /** Profile used to build the graph. */
  profile: string;
  /** ISO time of the build. */
  builtAt: string;
}

/**
 * The typed arrays of a road graph. Nodes are junctions; a road is one piece of road geometry
 * between two junctions (degree-2 chains are collapsed into it); an edge is one direction of
 * travel along a road. Adjacency is CSR: the out-edges of node u are firstOut[u] .. firstOut[u+1]-1.
 */
export interface RoadGraphArrays extends RoadLabelArrays {
  /**
   * Node latitude / longitude in 1e-7 degree (toE7 / fromE7; RoadGraph.nodeLatitude reads
   * degrees): OSM's own precision in half the bytes of float64 degrees.
   */
  nodeLatE7: Int32Array;
  nodeLonE7: Int32Array;
  /** Forward CSR: out-edges of u are [firstOut[u], firstOut[u+1]). Length nodeCount + 1. */
  firstOut: Uint32Array;
  /** Per edge: its head node, road, and 1 when it runs against the road's shape (tails: RoadGraph.edgeTail). */
  edgeHead: Uint32Array;
  edgeRoad: Uint32Array;
  edgeReversed: Uint8Array;
  /** Per road: end nodes (shape runs from roadFrom to roadTo) and shape points. */
  roadFrom: Uint32Array;
  roadTo: Uint32Array;
  /**
   * Interior shape points of road r: shapeLatE7/shapeLonE7[roadShapeStart[r] .. roadShapeStart[r+1]-1]
   * (1e-7 degree, like the nodes). The ends are the nodes roadFrom/roadTo and are not repeated
   * here; roadPointLat/Lon read any point in degrees.
   */
  roadShapeStart: Uint32Array;
  shapeLatE7: Int32Array;
  shapeLonE7: Int32Array;
  /**
   * Per road: length in whole centimetres (COST_STEP.distance; RoadGraph.roadMetres reads metres), speed in km/h, RoadFlag
   * bits, highway class index. Both directions of a road cost the same, so an edge's cost is its road's (RoadGraph.roadCost,
   * edgeCost). Centimetres in 4 bytes, where float64 metres took 8: lengths were whole centimetres already.
   */
  roadLengthCm: Uint32Array;
  roadSpeedKmh: Float32Array;
  roadFlags: Uint16Array;
  roadClass: Uint8Array;
  /** The limits on heavy vehicles of the roads that carry one (RoadLimitArrays: roads ascending; empty when none). */
  limitRoads: Uint32Array;
  limitValues: Uint16Array;
  limitAccess: Uint8Array;
  /** Per road, its label (name, ref, destination; roadLabels.ts) in the deduplicated table labelBytes / labelStart. */
  roadLabel: Uint32Array;
  labelBytes: Uint8Array;
  labelStart: Uint32Array;
}

/**
 * Search indexes derived from a graph, kept with it so a graph file can carry them and a service
 * loads them instead of building them (seconds on a country). Each is optional: whatever is
 * missing is built at first use (SnapIndex.for, RoadIndex.for) and attached here.
 */
export interface GraphIndexes {
  /** SnapIndex: the roads without bit 1 of snapRoadBits (not in a big component), ascending. */
  snapTinyRoads?: Uint32Array;
  /** SnapIndex: per road of snapTinyRoads, its strongly connected component when both ends share one, else -1. */
  snapTinyComponent?: Int32Array;
  /** SnapIndex: per road, bits: 1 both ends in a big component, 2 can drive into one, 4 can be reached from one. */
  snapRoadBits?: Uint8Array;
  /** roadBoxes (SnapIndex, RoadIndex): the flatbush bytes over the boxes of every ROADS_PER_BOX consecutive roads (item g = roads 8g..8g+7). */
  roadTree?: Uint8Array;
  /** roadBearings (turn-by-turn steps): per road, the bearings of leaving its start and its end, in 1/65,536 turns. */
  roadBearings?: Uint16Array;
}

/** Which cost a search minimises. */
export type Metric = 'distance' | 'duration';

/**
 * The unit of each metric's road costs: a road's length is a whole number of centimetres and its
 * duration a whole number of milliseconds, so a hierarchy's arc costs (sums of roads) are exact
 * integers that fit 32 bits (42,949 km; 49 days) and cost half the memory of float64.
 */
export const COST_STEP: Readonly<Record<Metric, number>> = { distance: 0.01, duration: 0.001 };

/**
 * `value` rounded up to a whole number of the metric's steps: never below the exact length or
 * time, so straight-line and speed bounds stay admissible. Idempotent (a value already within a
 * millionth of a step of a whole number stays).
 */
export function ceilToStep(value: number, metric: Metric): number {
  const step = COST_STEP[metric];
  return Math.ceil(value / step - 1e-6) * step;
}

/** The whole number of steps of a cost made of whole steps (a road's, or a sum of roads'). */
export function costSteps(cost: number, metric: Metric): number {
  return Math.round(cost / COST_STEP[metric]);
}

/** A road's travel time at its speed in whole milliseconds (at or above the exact time; ceilToStep's rounding). */
export function roadMillis(metres: number, speedKmh: number): number {
  return Math.ceil(metres / (speedKmh / 3.6) / COST_STEP.duration - 1e-6);
}

/**
 * The unit of RoadGraph.roadCost's numbers per metric: whole centimetres (roadLengthCm) or whole
 * milliseconds (roadMillis), 4 bytes a road each. unit * cost is the same double as the float64
 * metres or seconds were (k * 0.01, k * 0.001, as ceilToStep makes them).
 */
export const ROAD_COST_UNIT: Readonly<Record<Metric, number>> = { distance: COST_STEP.distance, duration: COST_STEP.duration };

/** A road's length in whole centimetres (at or above the exact length; ceilToStep's rounding), checked to fit 32 bits. */
export function roadCentimetres(metres: number): number {
  const cm = Math.ceil(metres / COST_STEP.distance - 1e-6);
  if (!(cm <= 0xffffffff)) throw new DetourError(ErrorCode.INVALID_INPUT, `a road of ${metres} m is longer than 32 bits of centimetres (42,949 km)`);
  return cm;
}

/**
 * An immutable road graph. Per-request state (search arrays, blocked masks) lives elsewhere,
 * so one graph can serve concurrent requests.
 */
export class RoadGraph implements RoadGraphArrays {
  readonly nodeLatE7!: Int32Array;
  readonly nodeLonE7!: Int32Array;
  readonly firstOut!: Uint32Array;
  readonly edgeHead!: Uint32Array;
  readonly edgeRoad!: Uint32Array;
  readonly edgeReversed!: Uint8Array;
  readonly roadFrom!: Uint32Array;
  readonly roadTo!: Uint32Array;
  readonly roadShapeStart!: Uint32Array;
  readonly shapeLatE7!: Int32Array;
  readonly shapeLonE7!: Int32Array;
  readonly roadLengthCm!: Uint32Array;
  readonly roadSpeedKmh!: Float32Array;
  readonly roadFlags!: Uint16Array;
  readonly roadClass!: Uint8Array;
  readonly limitRoads!: Uint32Array;
  readonly limitValues!: Uint16Array;
  readonly limitAccess!: Uint8Array;
  readonly roadLabel!: Uint32Array;
  readonly labelBytes!: Uint8Array;
  readonly labelStart!: Uint32Array;

  readonly meta: GraphMeta;
  /** See nodeXYZ: made on first use. */
  private unitXYZ?: Float64Array;
  /** See edgeTail, firstIn, inEdge: derived from the forward CSR on first use. */
  private tails?: Uint32Array;
  private reverse?: { firstIn: Uint32Array; inEdge: Uint32Array };
  /** Labels read so far, by id (labelOf). */
  private readonly labels = new Map<number, RoadLabel>();
  /** Per road, travel time in whole milliseconds (see roadMillis). */
  private millis?: Uint32Array;
  private fastest?: number;
  /** See edgeDistance, edgeDuration: per-edge copies of the road costs, made on first use. */
  private perEdge?: Partial<Record<Metric, Float64Array>>;
  /** Search indexes loaded with the graph or built for it (see GraphIndexes). */
  readonly indexes: GraphIndexes;

  constructor(arrays: RoadGraphArrays, meta: GraphMeta, indexes: GraphIndexes = {}) {
    Object.assign(this, arrays);
    this.meta = meta;
    this.indexes = indexes;
  }

  /**
   * Unit vectors (x, y, z) per node, for the A* chord heuristic; derived, not stored in files, and
   * made on first use: only the ALT engine reads them (24 B per node: 10 B per directed edge on
   * the 5M-node country, in every thread that builds a RoadGraph, for the default engine nothing).
   */
  get nodeXYZ(): Float64Array {
    if (!this.unitXYZ) {
      const n = this.nodeCount, lat = new Float64Array(n), lon = new Float64Array(n);
      for (let v = 0; v < n; v++) { lat[v] = fromE7(this.nodeLatE7[v]); lon[v] = fromE7(this.nodeLonE7[v]); }
      this.unitXYZ = unitVectors(lat, lon);
    }
    return this.unitXYZ;
  }

  /**
   * Per edge, its tail node. Derived from firstOut, not stored in files, and made on first use:
   * preprocessing (hierarchies, snap index) and the ALT engine read it; a route's path takes
   * tails one at a time (edgeTailOf). 4 B per directed edge that a service does not hold.
   */
  get edgeTail(): Uint32Array {
    if (!this.tails) {
      const { firstOut } = this;
      const tails = new Uint32Array(this.edgeHead.length);
      for (let v = 0; v + 1 < firstOut.length; v++) tails.fill(v, firstOut[v], firstOut[v + 1]);
      this.tails = tails;
    }
    return this.tails;
  }

  /** The tail of edge e (binary search over firstOut; no per-edge array). */
  edgeTailOf(e: number): number {
    return this.tails ? this.tails[e] : csrRow(this.firstOut, e);
  }

  /**
   * Reverse CSR: the in-edges of v are inEdge[firstIn[v]] .. inEdge[firstIn[v+1]-1] (forward edge
   * ids, ascending). Derived on first use, on shared memory (4 B per node and per edge): the
   * contraction, components, backward searches around closed roads and the penalty bound read
   * it; threads adopt their caller's (adoptReverseAdjacency) instead of each deriving it.
   */
  get firstIn(): Uint32Array {
    return this.reverseAdjacency().firstIn;
  }

  get inEdge(): Uint32Array {
    return this.reverseAdjacency().inEdge;
  }

  /** The reverse CSR (firstIn, inEdge), derived here if not yet, to share with threads. */
  reverseAdjacency(): { firstIn: Uint32Array; inEdge: Uint32Array } {
    if (!this.reverse) {
      const { edgeHead } = this;
      const n = this.nodeCount, m = edgeHead.length;
      const firstIn = new Uint32Array(new SharedOrPlainBuffer(4 * (n + 1)));
      for (let e = 0; e < m; e++) firstIn[edgeHead[e] + 1]++;
      for (let v = 0; v < n; v++) firstIn[v + 1] += firstIn[v];
      const fill = firstIn.slice(0, n);
      const inEdge = new Uint32Array(new SharedOrPlainBuffer(4 * m));
      for (let e = 0; e < m; e++) inEdge[fill[edgeHead[e]]++] = e;
      this.reverse = { firstIn, inEdge };
    }
    return this.reverse;
  }

  /** Takes the reverse CSR another RoadGraph over the same arrays derived (reverseAdjacency). */
  adoptReverseAdjacency(reverse: { firstIn: Uint32Array; inEdge: Uint32Array }): void {
    if (reverse.firstIn.length !== this.nodeCount + 1 || reverse.inEdge.length !== this.edgeCount) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `a reverse adjacency of ${reverse.firstIn.length - 1} nodes and ${reverse.inEdge.length} edges for a graph of ${this.nodeCount} and ${this.edgeCount}`);
    }
    this.reverse = reverse;
  }

  get nodeCount(): number {
    return this.nodeLatE7.length;
  }

  /** Latitude of node v in degrees. */
  nodeLatitude(v: number): number {
    return fromE7(this.nodeLatE7[v]);
  }

  /** Longitude of node v in degrees. */
  nodeLongitude(v: number): number {
    return fromE7(this.nodeLonE7[v]);
  }

  get edgeCount(): number {
    return this.edgeHead.length;
  }

  get roadCount(): number {
    return this.roadFrom.length;
  }

  /** The limits road r puts on heavy vehicles (undefined: none), by binary search of limitRoads. */
  roadLimits(r: number): RoadLimits | undefined {
    const k = sortedIndexOf(this.limitRoads, r);
    return k < 0 ? undefined : limitsAt(this, k);
  }

  /** What a driver reads of road r: its name, ref and signed destinations (empty when untagged). */
  labelOf(r: number): RoadLabel {
    const id = this.roadLabel[r];
    let label = this.labels.get(id);
    if (!label) this.labels.set(id, (label = labelOfKey(labelKeyAt(this, id))));
    return label;
  }

  /** Number of points of road r's polyline, both end nodes included (at least 2). */
  roadPointCount(r: number): number {
    return this.roadShapeStart[r + 1] - this.roadShapeStart[r] + 2;
  }

  /** Latitude of point k of road r's polyline (k = 0: node roadFrom; k = count - 1: node roadTo). */
  roadPointLat(r: number, k: number): number {
    if (k === 0) return fromE7(this.nodeLatE7[this.roadFrom[r]]);
    const i = this.roadShapeStart[r] + k - 1;
    return fromE7(i < this.roadShapeStart[r + 1] ? this.shapeLatE7[i] : this.nodeLatE7[this.roadTo[r]]);
  }

  /** Longitude of point k of road r's polyline. */
  roadPointLon(r: number, k: number): number {
    if (k === 0) return fromE7(this.nodeLonE7[this.roadFrom[r]]);
    const i = this.roadShapeStart[r] + k - 1;
    return fromE7(i < this.roadShapeStart[r + 1] ? this.shapeLonE7[i] : this.nodeLonE7[this.roadTo[r]]);
  }

  /**
   * Per road, travel time at its speed in whole milliseconds (made on first use: routes read it,
   * zone workers do not), on a SharedArrayBuffer where there is one, so routing threads adopt it
   * (adoptRoadMillis) instead of each making its own (4 B per road).
   */
  get roadMillis(): Uint32Array {
    if (!this.millis) {
      const { roadLengthCm, roadSpeedKmh } = this;
      const bytes = 4 * roadLengthCm.length;
      const millis = new Uint32Array(new SharedOrPlainBuffer(bytes));
      for (let r = 0; r < roadLengthCm.length; r++) {
        const t = roadMillis(roadLengthCm[r] * COST_STEP.distance, roadSpeedKmh[r]);
        if (!(t <= 0xffffffff)) {
          throw new DetourError(ErrorCode.INVALID_INPUT, `road ${r} takes ${t} ms at ${roadSpeedKmh[r]} km/h: more than 32 bits of milliseconds (49 days)`);
        }
        millis[r] = t;
      }
      this.millis = millis;
    }
    return this.millis;
  }

  /**
   * The same graph with other per-road speeds (km/h) and whole milliseconds (a vehicle's, never
   * faster than these): every array but those two is this graph's, read through the prototype;
   * what derives from the times (per-edge costs) is made for the view on first use.
   */
  withRoadTimes(speedKmh: Float32Array, millis: Uint32Array): this {
    if (speedKmh.length !== this.roadCount || millis.length !== this.roadCount) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `road times of ${speedKmh.length} / ${millis.length} roads for a graph of ${this.roadCount}`);
    }
    const view = Object.create(this) as this;
    Object.defineProperty(view, 'roadSpeedKmh', { value: speedKmh, enumerable: true });
    Object.defineProperty(view, 'millis', { value: millis, writable: true });
    Object.defineProperty(view, 'perEdge', { value: undefined, writable: true });
    return view;
  }

  /** Takes another RoadGraph's roadMillis over the same roads (a routing thread's graph: the caller's, shared). */
  adoptRoadMillis(millis: Uint32Array): void {
    if (millis.length !== this.roadCount) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `roadMillis of ${millis.length} roads for a graph of ${this.roadCount}`);
    }
    this.millis = millis;
  }

  /** The fastest speed on any edge, metres per second (bounds the time heuristic). */
  get maxSpeedMps(): number {
    if (this.fastest === undefined) {
      const { roadLengthCm, edgeRoad } = this;
      const millis = this.roadMillis;
      let maxSpeed = 0;
      for (let e = 0; e < edgeRoad.length; e++) {
        const r = edgeRoad[e];
        const t = millis[r] * COST_STEP.duration;
        if (t > 0) maxSpeed = Math.max(maxSpeed, roadLengthCm[r] * COST_STEP.distance / t);
      }
      this.fastest = maxSpeed > 0 ? maxSpeed : 1;
    }
    return this.fastest;
  }

  /**
   * The per-road cost array for a metric, in ROAD_COST_UNIT[metric]: whole centimetres (roadLengthCm)
   * or whole milliseconds (roadMillis); edge e costs roadCost[edgeRoad[e]] * ROAD_COST_UNIT[metric].
   */
  roadCost(metric: Metric): Uint32Array {
    return metric === 'distance' ? this.roadLengthCm : this.roadMillis;
  }

  /** Road r's length in metres. */
  roadMetres(r: number): number {
    return this.roadLengthCm[r] * COST_STEP.distance;
  }

  /**
   * The per-edge cost array for a metric, made on first use (8 B per directed edge): for
   * preprocessing and the comparison engines, which scan edges in bulk. Routes and matrices read
   * roadCost through edgeRoad instead, so a service need not hold it.
   */
  edgeCost(metric: Metric): Float64Array {
    const made = (this.perEdge ??= {});
    let costs = made[metric];
    if (!costs) {
      const perRoad = this.roadCost(metric), unit = ROAD_COST_UNIT[metric], edgeRoad = this.edgeRoad;
      costs = new Float64Array(edgeRoad.length);
      for (let e = 0; e < edgeRoad.length; e++) costs[e] = perRoad[edgeRoad[e]] * unit;
      made[metric] = costs;
    }
    return costs;
  }

  /** Per edge, length in metres (edgeCost('distance')). */
  get edgeDistance(): Float64Array {
    return this.edgeCost('distance');
  }

  /** Per edge, travel time in seconds (edgeCost('duration')). */
  get edgeDuration(): Float64Array {
    return this.edgeCost('duration');
  }

  /** Total length of all roads in metres (each road counted once, whatever its directions). */
  totalRoadLength(): number {
    let sum = 0;
    for (let r = 0; r < this.roadLengthCm.length; r++) sum += this.roadLengthCm[r];
    return sum * COST_STEP.distance;
  }

  /** Bytes held by the graph's typed arrays (the derived ones once made). */
  byteSize(): number {
    let bytes = (this.unitXYZ?.byteLength ?? 0) + (this.tails?.byteLength ?? 0) + (this.millis?.byteLength ?? 0);
    for (const costs of Object.values(this.perEdge ?? {})) bytes += costs.byteLength;
    if (this.reverse) bytes += this.reverse.firstIn.byteLength + this.reverse.inEdge.byteLength;
    for (const key of ARRAY_KEYS) bytes += (this[key] as ArrayBufferView).byteLength;
    return bytes;
  }

  /** The plain arrays, e.g. for saving. */
  arrays(): RoadGraphArrays {
    const out = {} as Record<string, ArrayBufferView>;
    for (const key of ARRAY_KEYS) out[key] = this[key];
    return out as unknown as RoadGraphArrays;
  }
}

/** The array members of RoadGraphArrays, in file order. */
export const ARRAY_KEYS = [
  'nodeLatE7', 'nodeLonE7', 'firstOut', 'edgeHead', 'edgeRoad', 'edgeReversed', 'roadFrom', 'roadTo', 'roadShapeStart',
  'shapeLatE7', 'shapeLonE7', 'roadLengthCm', 'roadSpeedKmh', 'roadFlags', 'roadClass', 'limitRoads', 'limitValues', 'limitAccess',
  'roadLabel', 'labelBytes', 'labelStart',
] as const satisfies readonly (keyof RoadGraphArrays)[];
