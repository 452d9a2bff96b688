import { haversineMetres } from '../geo/haversine.js';
import { fromE7, toE7 } from '../geo/coordinates.js';
import { DetourError, ErrorCode } from '../errors.js';
import { RoadFlag, type RoadAttributes } from './carProfile.js';
import { Growable } from './growable.js';
import { RoadGraph, roadCentimetres, type GraphMeta } from './RoadGraph.js';
import { expandTurns, outAdjacency } from './turnExpansion.js';
import { LabelTable, type LabelKey } from './roadLabels.js';
import { limitArrays, sameStoredLimits, strictestLimits, type RoadLimits } from './vehicleLimits.js';

/** A way's attributes for the car, the limits it puts on heavy vehicles (none: undefined) and its label (roadLabels.ts; none: ''). */
export type WayAttributes = RoadAttributes & { limits?: RoadLimits; label?: LabelKey };

const DIRECTION_BITS = RoadFlag.FORWARD | RoadFlag.BACKWARD;

/**
 * Collects points and ways from any source (OSM, GeoJSON, ngraph) and builds a RoadGraph.
 * Ways are split at junctions (points shared by several ways, or way ends); then chains of
 * pieces that meet at a point no other road touches, with equal attributes and label, are joined into one
 * road, which keeps every route identical while shrinking the graph.
 * Turn restrictions (given as sequences of directed roads, see build) split junctions into copies
 * so the graph stays node-based (turnExpansion.ts).
 */
export class GraphBuilder {
  /** Points in 1e-7 degree, as the graph stores them (a NaN, an unused point, becomes 0). */
  private readonly pointLat = new Growable(Int32Array);
  private readonly pointLon = new Growable(Int32Array);
  private readonly wayPoints = new Growable(Uint32Array);
  private readonly wayStart: number[] = [0];
  private readonly wayAttrs: WayAttributes[] = [];
  private readonly keptNodes = new Set<number>();
  private readonly pointFlags = new Map<number, number>();
  private readonly pointLimits = new Map<number, RoadLimits>();
  /** What the last build did about turn restrictions. */
  turnStats: TurnStats = { sequences: 0, uTurnSequences: 0, nodesAdded: 0, edgesAdded: 0 };

  /**
   * Adds a point (degrees; kept to 1e-7 degree, about 1 cm) and returns its index for addWay.
   * Callers deduplicate shared points.
   */
  addPoint(lat: number, lon: number): number {
    this.pointLat.push(toE7(lat));
    this.pointLon.push(toE7(lon));
    return this.pointLat.length - 1;
  }

  get pointCount(): number {
    return this.pointLat.length;
  }

  get wayCount(): number {
    return this.wayAttrs.length;
  }

  /**
   * Adds a routable way through the given point indices and returns its index (segments are
   * numbered from 0 along it, after repeated consecutive points are dropped). Ways with fewer
   * than 2 distinct points are ignored (-1). The speed must be a positive number of km/h (a
   * road's time is whole milliseconds of at most 2^32 per hierarchy arc: COST_STEP).
   */
  addWay(points: ArrayLike<number>, attrs: WayAttributes): number {
    if (!(attrs.speedKmh > 0 && attrs.speedKmh < Infinity)) {
      throw new DetourError(ErrorCode.INVALID_INPUT, `way ${this.wayAttrs.length}: speedKmh must be a positive number of km/h, got ${attrs.speedKmh}`);
    }
    let added = 0;
    let last = -1;
    for (let i = 0; i < points.length; i++) {
      const p = points[i];
      if (p === last) continue; // repeated point: zero-length segment
      this.wayPoints.push(p);
      last = p;
      added++;
    }
    if (added < 2) {
      this.wayPoints.length -= added;
      return -1;
    }
    this.wayStart.push(this.wayPoints.length);
    this.wayAttrs.push(attrs);
    return this.wayAttrs.length - 1;
  }

  /** Keeps a point as a graph node (a turn restriction's via point), never joined into a road. */
  keepNode(point: number): void {
    this.keptNodes.add(point);
  }

  /** Road flags (RoadFlag bits) every road through this point gets: a toll booth's TOLL_GATE. */
  flagPoint(point: number, flags: number): void {
    this.pointFlags.set(point, (this.pointFlags.get(point) ?? 0) | flags);
  }

  /** Limits every road through this point gets (a barrier node's `maxheight`, `hgv`, ...): the strictest of its own and these. */
  limitPoint(point: number, limits: RoadLimits): void {
    this.pointLimits.set(point, strictestLimits(this.pointLimits.get(point), limits)!);
  }

  /**
   * Builds the immutable graph. Throws GRAPH_EMPTY when no routable road was added.
   * `turns`, when given, is called with the roads the ways became and returns the turn rules,
   * each a sequence of directed roads (see RoadLayout.directedRoad).
   */
  build(meta: GraphMeta, turns?: (layout: RoadLayout) => TurnRule[]): RoadGraph {
    const pieces = this.splitAtJunctions();
    const roads = joinChains(pieces, this.pointLat.length, this.keptNodes);
    if (roads.attrs.length === 0) {
      throw new DetourError(ErrorCode.GRAPH_EMPTY, `no routable road found in ${meta.source}`);
    }
    const rules = turns ? turns(new RoadLayout(pieces, roads)) : [];
    const { graph, stats } = assemble(roads, this.pointLat.toArray(), this.pointLon.toArray(), meta, rules, this.pointFlags, this.pointLimits);
    this.turnStats = stats;
    return graph;
  }

  private splitAtJunctions(): Pieces {
    const n = this.pointLat.length;
    const wayPoints = this.wayPoints.toArray();
    const uses = new Uint32Array(n);
    const junction = new Uint8Array(n);
    for (let w = 0; w < this.wayAttrs.length; w++) {
      const a = this.wayStart[w];
      const b = this.wayStart[w + 1];
      for (let i = a; i < b; i++) uses[wayPoints[i]]++;
      junction[wayPoints[a]] = 1;
      junction[wayPoints[b - 1]] = 1;
    }
    for (let p = 0; p < n; p++) if (uses[p] > 1) junction[p] = 1;
    for (const p of this.keptNodes) junction[p] = 1;

    const pieces: Pieces = {
      points: new Growable(Uint32Array), start: [0], attrs: [], wayFirstPiece: [0], firstSegment: [], road: [], reversed: [],
    };
    for (let w = 0; w < this.wayAttrs.length; w++) {
      const a = this.wayStart[w];
      const b = this.wayStart[w + 1];
      pieces.points.push(wayPoints[a]);
      pieces.firstSegment.push(0);
      for (let i = a + 1; i < b; i++) {
        const p = wayPoints[i];
        pieces.points.push(p);
        if (junction[p]) {
          pieces.start.push(pieces.points.length);
          pieces.attrs.push(this.wayAttrs[w]);
          if (i < b - 1) {
            pieces.points.push(p); // next piece starts here
            pieces.firstSegment.push(i - a);
          }
        }
      }
      pieces.wayFirstPiece.push(pieces.attrs.length);
    }
    return pieces;
  }
}

interface Pieces {
  points: Growable<Uint32Array>;
  start: number[];
  attrs: WayAttributes[];
  /** Pieces of way w are wayFirstPiece[w] .. wayFirstPiece[w + 1] - 1, in the way's order. */
  wayFirstPiece: number[];
  /** Per piece: the index of its first segment within its way. */
  firstSegment: number[];
  /** Per piece, set when joined into roads: its road, and 1 when it runs against the road's shape. */
  road: number[];
  reversed: number[];
}

/** A turn rule: `no` forbids driving `roads` in sequence; `only` allows nothing but `roads` once its prefix is driven. */
export interface TurnRule {
  kind: 'no' | 'only';
  /** Directed roads (RoadLayout.directedRoad), from the first (from) to the last (to). */
  roads: number[];
}

/** What the turn rules cost: sequences forbidden, and nodes / edges the copies add. */
export interface TurnStats {
  sequences: number;
  uTurnSequences: number;
  nodesAdded: number;
  edgesAdded: number;
}

/** Where the builder's ways went: which road (and direction) each segment of a way is part of. */
export class RoadLayout {
  constructor(private readonly pieces: Pieces, private readonly roads: Roads) {}

  get roadCount(): number {
    return this.roads.attrs.length;
  }

  /**
   * The directed road driving segment `segment` of builder way `way` (2 * road, + 1 when that is
   * against the road's shape); `againstWay` drives the segment against the way's point order.
   */
  directedRoad(way: number, segment: number, againstWay = false): number {
    const { wayFirstPiece, firstSegment } = this.pieces;
    let p = wayFirstPiece[way + 1] - 1;
    while (p > wayFirstPiece[way] && firstSegment[p] > segment) p--;
    return 2 * this.pieces.road[p] + ((this.pieces.reversed[p] ^ (againstWay ? 1 : 0)) & 1);
  }

  /** Builder point indices at the start and end of a directed road. */
  directedRoadStart(directed: number): number {
    const r = directed >> 1;
    return directed & 1 ? this.lastPoint(r) : this.firstPoint(r);
  }

  directedRoadEnd(directed: number): number {
    const r = directed >> 1;
    return directed & 1 ? this.firstPoint(r) : this.lastPoint(r);
  }

  private firstPoint(r: number): number {
    return this.roads.points.get(this.roads.start[r]);
  }

  private lastPoint(r: number): number {
    return this.roads.points.get(this.roads.start[r + 1] - 1);
  }
}

interface Roads {
  points: Growable<Uint32Array>;
  start: number[];
  attrs: WayAttributes[];
}

/** The attributes of a piece as seen when travelled against its shape. */
function reversedFlags(flags: number): number {
  const dir = flags & DIRECTION_BITS;
  const swapped = dir === RoadFlag.FORWARD ? RoadFlag.BACKWARD : dir === RoadFlag.BACKWARD ? RoadFlag.FORWARD : dir;
  return (flags & ~DIRECTION_BITS) | swapped;
}

function orientedFlags(attrs: WayAttributes, reversed: boolean): number {
  return reversed ? reversedFlags(attrs.flags) : attrs.flags;
}

/**
 * Joins pieces across points where exactly two pieces meet with equal attributes (in the
 * direction of travel). A ring made only of such points is cut at the start of its first piece.
 */
function joinChains(pieces: Pieces, pointCount: number, kept: Set<number>): Roads {
  const pieceCount = pieces.attrs.length;
  const pts = pieces.points.toArray();
  const first = (p: number) => pts[pieces.start[p]];
  const last = (p: number) => pts[pieces.start[p + 1] - 1];

  // Up to two incident piece ends per point: entry = piece * 2 + (0 start | 1 end).
  const degree = new Uint32Array(pointCount);
  const end0 = new Int32Array(pointCount).fill(-1);
  const end1 = new Int32Array(pointCount).fill(-1);
  const addEnd = (point: number, entry: number) => {
    const d = degree[point]++;
    if (d === 0) end0[point] = entry;
    else if (d === 1) end1[point] = entry;
  };
  for (let p = 0; p < pieceCount; p++) {
    addEnd(first(p), p * 2);
    addEnd(last(p), p * 2 + 1);
  }
  const mergeable = new Uint8Array(pointCount);
  for (let v = 0; v < pointCount; v++) {
    if (degree[v] !== 2 || kept.has(v)) continue;
    const a = end0[v] >> 1;
    const b = end1[v] >> 1;
    if (a === b) continue;
    // Orient a to end at v and b to start at v; then their attributes must be equal.
    const aReversed = (end0[v] & 1) === 0;
    const bReversed = (end1[v] & 1) === 1;
    const A = pieces.attrs[a];
    const B = pieces.attrs[b];
    if (
      orientedFlags(A, aReversed) === orientedFlags(B, bReversed) &&
      A.speedKmh === B.speedKmh &&
      A.highwayClass === B.highwayClass &&
      sameStoredLimits(A.limits, B.limits) &&
      (A.label ?? '') === (B.label ?? '')
    ) {
      mergeable[v] = 1;
    }
  }
  const otherEnd = (v: number, piece: number) => ((end0[v] >> 1) === piece ? end1[v] : end0[v]);

  const roads: Roads = { points: new Growable(Uint32Array), start: [0], attrs: [] };
  const visited = new Uint8Array(pieceCount);
  for (let p = 0; p < pieceCount; p++) {
    if (visited[p]) continue;
    // Walk backwards to the head of the chain.
    let cur = p;
    let curReversed = false;
    for (;;) {
      const tail = curReversed ? last(cur) : first(cur);
      if (!mergeable[tail]) break;
      const entry = otherEnd(tail, cur);
      const prev = entry >> 1;
      if (prev === p || visited[prev]) break;
      cur = prev;
      curReversed = (entry & 1) === 0; // prev must end at `tail`
    }
    // Walk forwards, emitting the chain as one road.
    const roadAttrs = { ...pieces.attrs[cur], flags: orientedFlags(pieces.attrs[cur], curReversed) };
    let emitted = 0;
    for (;;) {
      visited[cur] = 1;
      pieces.road[cur] = roads.attrs.length;
      pieces.reversed[cur] = curReversed ? 1 : 0;
      const a = pieces.start[cur];
      const b = pieces.start[cur + 1];
      if (curReversed) {
        for (let i = b - 1 - (emitted ? 1 : 0); i >= a; i--) roads.points.push(pts[i]);
      } else {
        for (let i = a + (emitted ? 1 : 0); i < b; i++) roads.points.push(pts[i]);
      }
      emitted++;
      const head = curReversed ? first(cur) : last(cur);
      if (!mergeable[head]) break;
      const entry = otherEnd(head, cur);
      const next = entry >> 1;
      if (visited[next]) break;
      cur = next;
      curReversed = (entry & 1) === 1; // next must start at `head`
    }
    roads.start.push(roads.points.length);
    roads.attrs.push(roadAttrs);
  }
  return roads;
}

/** Spatial order (Morton / Z-order) of points, so neighbours in the graph sit near in memory. */
function mortonOrder(lat: Int32Array, lon: Int32Array, ids: Uint32Array): Uint32Array {
  let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
  for (const i of ids) {
    minLat = Math.min(minLat, lat[i]); maxLat = Math.max(maxLat, lat[i]);
    minLon = Math.min(minLon, lon[i]); maxLon = Math.max(maxLon, lon[i]);
  }
  const spread = (v: number) => {
    v &= 0xffff;
    v = (v | (v << 8)) & 0x00ff00ff;
    v = (v | (v << 4)) & 0x0f0f0f0f;
    v = (v | (v << 2)) & 0x33333333;
    v = (v | (v << 1)) & 0x55555555;
    return v >>> 0;
  };
  const sLat = maxLat > minLat ? 65535 / (maxLat - minLat) : 0;
  const sLon = maxLon > minLon ? 65535 / (maxLon - minLon) : 0;
  const keys = new Float64Array(ids.length);
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k];
    keys[k] = (spread((lon[i] - minLon) * sLon) | (spread((lat[i] - minLat) * sLat) << 1)) >>> 0;
  }
  // Points at one position stay adjacent (junctionNodes.ts relies on it): ties by position, then id.
  const order = Array.from(ids.keys()).sort(
    (a, b) => keys[a] - keys[b] || lat[ids[a]] - lat[ids[b]] || lon[ids[a]] - lon[ids[b]] || ids[a] - ids[b],
  );
  return Uint32Array.from(order, (k) => ids[k]);
}

/** Turns roads over builder points into the CSR arrays of a RoadGraph, splitting nodes for turn rules. */
function assemble(
  roads: Roads, pointLat: Int32Array, pointLon: Int32Array, meta: GraphMeta, rules: TurnRule[],
  pointFlags: ReadonlyMap<number, number>, pointLimits: ReadonlyMap<number, RoadLimits>,
): { graph: RoadGraph; stats: TurnStats } {
  const roadCount = roads.attrs.length;
  const pts = roads.points.toArray();

  // Nodes: the distinct road ends, in spatial order.
  const nodeOfPoint = new Int32Array(pointLat.length).fill(-1);
  const endPoints: number[] = [];
  for (let r = 0; r < roadCount; r++) {
    for (const p of [pts[roads.start[r]], pts[roads.start[r + 1] - 1]]) {
      if (nodeOfPoint[p] === -1) {
        nodeOfPoint[p] = 0;
        endPoints.push(p);
      }
    }
  }
  const ordered = mortonOrder(pointLat, pointLon, Uint32Array.from(endPoints));
  const baseNodeCount = ordered.length;
  ordered.forEach((p, i) => {
    nodeOfPoint[p] = i;
  });
  // Roads in the order of their lower end node, so they are spatial like the nodes: the per-road
  // values a search reads beside each edge (its cost, whether it is blocked) then sit near in
  // memory for nearby edges too. Keys pack (lower end, road) into one exact double.
  const roadKeys = new Float64Array(roadCount);
  for (let r = 0; r < roadCount; r++) {
    roadKeys[r] = Math.min(nodeOfPoint[pts[roads.start[r]]], nodeOfPoint[pts[roads.start[r + 1] - 1]]) * roadCount + r;
  }
  roadKeys.sort();
  const roadOrder = new Uint32Array(roadCount); // new road id -> builder road
  const newRoad = new Uint32Array(roadCount);
  for (let r = 0; r < roadCount; r++) {
    roadOrder[r] = roadKeys[r] % roadCount;
    newRoad[roadOrder[r]] = r;
  }

  const roadFrom = new Uint32Array(roadCount);
  const roadTo = new Uint32Array(roadCount);
  const roadShapeStart = new Uint32Array(roadCount + 1);
  // Interior points only: the ends are nodes already.
  const shapeLatE7 = new Int32Array(pts.length - 2 * roadCount);
  const shapeLonE7 = new Int32Array(pts.length - 2 * roadCount);
  let shapeCount = 0;
  const roadLengthCm = new Uint32Array(roadCount);
  const roadSpeedKmh = new Float32Array(roadCount);
  const roadFlags = new Uint16Array(roadCount);
  const roadClass = new Uint8Array(roadCount);
  const limits: (RoadLimits | undefined)[] = new Array(roadCount);
  const labels = new LabelTable();
  const roadLabel = new Uint32Array(roadCount);
  let baseEdgeCount = 0;
  const roadEnds = new Uint32Array(baseNodeCount);
  for (let r = 0; r < roadCount; r++) {
    const built = roadOrder[r];
    const a = roads.start[built];
    const b = roads.start[built + 1];
    roadShapeStart[r] = shapeCount;
    let length = 0;
    for (let i = a + 1; i < b; i++) {
      const p = pts[i - 1];
      const q = pts[i];
      // The length of the geometry as stored (to 1e-7 degree), so a route's polyline measures its distance.
      length += haversineMetres(fromE7(pointLat[p]), fromE7(pointLon[p]), fromE7(pointLat[q]), fromE7(pointLon[q]));
      if (i < b - 1) {
        shapeLatE7[shapeCount] = pointLat[q];
        shapeLonE7[shapeCount] = pointLon[q];
        shapeCount++;
      }
    }
    const attrs = roads.attrs[built];
    roadFrom[r] = nodeOfPoint[pts[a]];
    roadTo[r] = nodeOfPoint[pts[b - 1]];
    roadEnds[roadFrom[r]]++;
    roadEnds[roadTo[r]]++;
    roadLengthCm[r] = roadCentimetres(length);
    roadSpeedKmh[r] = attrs.speedKmh;
    let flags = attrs.flags;
    if (pointFlags.size > 0) for (let i = a; i < b; i++) flags |= pointFlags.get(pts[i]) ?? 0;
    roadFlags[r] = flags;
    roadClass[r] = attrs.highwayClass;
    let roadLimits = attrs.limits;
    if (pointLimits.size > 0) for (let i = a; i < b; i++) roadLimits = strictestLimits(roadLimits, pointLimits.get(pts[i]));
    limits[r] = roadLimits;
    roadLabel[r] = labels.id(attrs.label);
    if (attrs.flags & RoadFlag.FORWARD) baseEdgeCount++;
    if (attrs.flags & RoadFlag.BACKWARD) baseEdgeCount++;
  }
  roadShapeStart[roadCount] = shapeCount;

  // Directed edges of the plain graph; edgeOfDirected[2r + reversed] is the edge driving road r that way.
  let tails: Uint32Array = new Uint32Array(baseEdgeCount);
  let heads: Uint32Array = new Uint32Array(baseEdgeCount);
  const baseRoad = new Uint32Array(baseEdgeCount);
  const baseRev = new Uint8Array(baseEdgeCount);
  const edgeOfDirected = new Int32Array(2 * roadCount).fill(-1);
  let k = 0;
  for (let r = 0; r < roadCount; r++) {
    if (roadFlags[r] & RoadFlag.FORWARD) {
      tails[k] = roadFrom[r]; heads[k] = roadTo[r]; baseRoad[k] = r; baseRev[k] = 0; edgeOfDirected[2 * r] = k; k++;
    }
    if (roadFlags[r] & RoadFlag.BACKWARD) {
      tails[k] = roadTo[r]; heads[k] = roadFrom[r]; baseRoad[k] = r; baseRev[k] = 1; edgeOfDirected[2 * r + 1] = k; k++;
    }
  }

  // Turn rules -> forbidden edge sequences -> node copies.
  const stats: TurnStats = { sequences: 0, uTurnSequences: 0, nodesAdded: 0, edgesAdded: 0 };
  let baseOf: Uint32Array | undefined;
  let copyOf: Uint32Array = new Uint32Array(0);
  // Rules name directed builder roads (2 * road + against): renumbered like the roads.
  const renumbered = rules.map((rule) => ({ ...rule, roads: rule.roads.map((d) => 2 * newRoad[d >> 1] + (d & 1)) }));
  const forbidden = forbiddenSequences(renumbered, edgeOfDirected, tails, heads, baseNodeCount);
  if (forbidden.length > 0) {
    const reverse = new Int32Array(baseEdgeCount);
    for (let e = 0; e < baseEdgeCount; e++) reverse[e] = edgeOfDirected[2 * baseRoad[e] + (baseRev[e] ^ 1)];
    const expanded = expandTurns({ nodeCount: baseNodeCount, tails, heads, reverse, roadEnds }, forbidden);
    stats.sequences = forbidden.length;
    stats.uTurnSequences = expanded.uTurnSequences;
    stats.nodesAdded = expanded.copyOf.length;
    stats.edgesAdded = expanded.baseEdge.length - baseEdgeCount;
    baseOf = expanded.baseEdge;
    tails = expanded.tails;
    heads = expanded.heads;
    copyOf = expanded.copyOf;
  }

  // Final node ids: each original node in spatial order, its copies right after it (same position).
  const nodeCount = baseNodeCount + copyOf.length;
  const copiesOf = new Uint32Array(baseNodeCount + 1);
  for (let c = 0; c < copyOf.length; c++) copiesOf[copyOf[c] + 1]++;
  for (let v = 0; v < baseNodeCount; v++) copiesOf[v + 1] += copiesOf[v];
  const newId = new Uint32Array(nodeCount);
  for (let v = 0; v < baseNodeCount; v++) newId[v] = v + copiesOf[v];
  const nextCopy = new Uint32Array(baseNodeCount);
  for (let c = 0; c < copyOf.length; c++) {
    const v = copyOf[c];
    newId[baseNodeCount + c] = newId[v] + 1 + nextCopy[v]++;
  }
  const nodeLatE7 = new Int32Array(nodeCount);
  const nodeLonE7 = new Int32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    const p = ordered[v < baseNodeCount ? v : copyOf[v - baseNodeCount]];
    nodeLatE7[newId[v]] = pointLat[p];
    nodeLonE7[newId[v]] = pointLon[p];
  }
  for (let r = 0; r < roadCount; r++) {
    roadFrom[r] = newId[roadFrom[r]];
    roadTo[r] = newId[roadTo[r]];
  }

  // Counting sort of the edges by tail into CSR order.
  const edgeCount = tails.length;
  const firstOut = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < edgeCount; e++) firstOut[newId[tails[e]] + 1]++;
  for (let u = 0; u < nodeCount; u++) firstOut[u + 1] += firstOut[u];
  const fill = firstOut.slice(0, nodeCount);
  const edgeHead = new Uint32Array(edgeCount);
  const edgeRoad = new Uint32Array(edgeCount);
  const edgeReversed = new Uint8Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const tail = newId[tails[e]];
    const slot = fill[tail]++;
    const b = baseOf ? baseOf[e] : e;
    const r = baseRoad[b];
    edgeHead[slot] = newId[heads[e]];
    edgeRoad[slot] = r;
    edgeReversed[slot] = baseRev[b];
  }

  const graph = new RoadGraph(
    {
      nodeLatE7, nodeLonE7, firstOut, edgeHead, edgeRoad, edgeReversed, roadFrom, roadTo, roadShapeStart, shapeLatE7, shapeLonE7, roadLengthCm, roadSpeedKmh,
      roadFlags, roadClass, ...limitArrays(limits), ...labels.arrays(roadLabel),
    },
    meta,
  );
  return { graph, stats };
}

/**
 * Turn rules as forbidden sequences of plain-graph edges. A `no` rule whose roads cannot all be
 * driven that way can never be driven, so it forbids nothing; an `only` rule forbids every other
 * edge out of the end of its prefix (u-turn included).
 */
function forbiddenSequences(rules: TurnRule[], edgeOfDirected: Int32Array, tails: Uint32Array, heads: Uint32Array, nodeCount: number): number[][] {
  const out: number[][] = [];
  const adjacency = rules.some((r) => r.kind === 'only') ? outAdjacency(nodeCount, tails) : undefined;
  for (const rule of rules) {
    const edges = rule.roads.map((d) => edgeOfDirected[d]);
    const prefix = edges.slice(0, -1);
    if (prefix.some((e) => e < 0)) continue; // the prefix cannot be driven: nothing to forbid
    if (rule.kind === 'no') {
      if (edges[edges.length - 1] >= 0) out.push(edges);
      continue;
    }
    const allowed = edges[edges.length - 1];
    const v = heads[prefix[prefix.length - 1]];
    for (let k = adjacency!.firstOut[v]; k < adjacency!.firstOut[v + 1]; k++) {
      const e = adjacency!.outEdges[k];
      if (e !== allowed) out.push([...prefix, e]);
    }
  }
  return out;
}
