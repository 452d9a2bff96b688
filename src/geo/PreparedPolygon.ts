/** A ring as [longitude, latitude] positions; closed or open (a repeated first point is dropped). */
export type Ring = ReadonlyArray<readonly [number, number] | readonly number[]>;

/**
 * A polygon (outer rings and holes alike; the even-odd rule tells them apart) in the flat form the
 * kernels read, with a y-slab edge index: the bbox is cut into horizontal rows and each row lists
 * the edges whose y-range meets it, so a point test reads only the edges of its row.
 */
export class PreparedPolygon {
  /** Vertices, interleaved longitude, latitude. */
  readonly xy: Float64Array;
  /** next[i]: the vertex edge i runs to (the ring's first vertex for its last one). */
  readonly next: Int32Array;
  readonly rowStart: Int32Array;
  readonly rowEdges: Int32Array;
  readonly rows: number;
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly invRowHeight: number;

  constructor(rings: readonly Ring[]) {
    const cleaned = rings.map(openRing).filter((r) => r.length >= 2);
    const vertexCount = cleaned.reduce((s, r) => s + r.length, 0);
    this.xy = new Float64Array(vertexCount * 2);
    this.next = new Int32Array(vertexCount);
    let v = 0;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const ring of cleaned) {
      const first = v;
      for (let k = 0; k < ring.length; k++, v++) {
        const x = ring[k][0], y = ring[k][1];
        this.xy[2 * v] = x;
        this.xy[2 * v + 1] = y;
        this.next[v] = k === ring.length - 1 ? first : v + 1;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
    let rows: number;
    this.minX = minX;
    this.minY = minY;
    this.maxX = maxX;
    this.maxY = maxY;
    this.rows = rows = indexRows(this.xy, this.next, maxY - minY);
    this.invRowHeight = maxY > minY ? rows / (maxY - minY) : 0;
    const rowOf = (y: number) => Math.min(rows - 1, Math.floor((y - minY) * this.invRowHeight));
    const counts = new Int32Array(rows + 1);
    for (let i = 0; i < vertexCount; i++) {
      const j = this.next[i];
      const r0 = rowOf(Math.min(this.xy[2 * i + 1], this.xy[2 * j + 1]));
      const r1 = rowOf(Math.max(this.xy[2 * i + 1], this.xy[2 * j + 1]));
      for (let r = r0; r <= r1; r++) counts[r + 1]++;
    }
    for (let r = 0; r < rows; r++) counts[r + 1] += counts[r];
    this.rowStart = counts.slice();
    this.rowEdges = new Int32Array(counts[rows]);
    for (let i = 0; i < vertexCount; i++) {
      const j = this.next[i];
      const r0 = rowOf(Math.min(this.xy[2 * i + 1], this.xy[2 * j + 1]));
      const r1 = rowOf(Math.max(this.xy[2 * i + 1], this.xy[2 * j + 1]));
      for (let r = r0; r <= r1; r++) this.rowEdges[counts[r]++] = i;
    }
  }

  get vertexCount(): number {
    return this.next.length;
  }

  /**
   * A PreparedPolygon from its fields, e.g. one built on a worker thread and posted here (a
   * structured clone keeps the fields and typed arrays but not the class): no work, no index rebuilt.
   */
  static revive(fields: PreparedPolygonFields): PreparedPolygon {
    return Object.assign(Object.create(PreparedPolygon.prototype) as PreparedPolygon, fields);
  }

  /** The rings back, open, as [longitude, latitude] positions (the rings given, closing and repeated points dropped). */
  rings(): Array<Array<[number, number]>> {
    const out: Array<Array<[number, number]>> = [];
    for (let v = 0; v < this.next.length; ) {
      const ring: Array<[number, number]> = [];
      const first = v;
      for (;;) {
        ring.push([this.xy[2 * v], this.xy[2 * v + 1]]);
        if (this.next[v] === first) break;
        v++;
      }
      v++;
      out.push(ring);
    }
    return out;
  }
}

/** The data of a PreparedPolygon, as a structured clone carries it. */
export type PreparedPolygonFields = Pick<PreparedPolygon, 'xy' | 'next' | 'rowStart' | 'rowEdges' | 'rows' | 'minX' | 'minY' | 'maxX' | 'maxY' | 'invRowHeight'>;

/** Index entries allowed per vertex (plus a constant): the index stays O(vertices) for any shape. */
export const INDEX_ENTRIES_PER_VERTEX = 8;
const INDEX_ENTRIES_BASE = 4096;

/**
 * How many rows the y-slab index gets. About two edge ends per row (at least 256 rows) gives
 * short rows; but an edge is listed in every row it spans, so a polygon whose edges span its
 * whole height (a sawtooth, a star) would need vertices x rows entries. Each row lists about
 * S + V / R edges, where S (the edges a horizontal line crosses, on average) is the polygon's
 * own and V / R the index's share, so capping the entries at O(V) costs point tests little.
 */
function indexRows(xy: Float64Array, next: Int32Array, height: number): number {
  const v = next.length;
  if (v === 0 || !(height > 0)) return 1;
  let spans = 0;
  for (let i = 0; i < v; i++) spans += Math.abs(xy[2 * next[i] + 1] - xy[2 * i + 1]) / height;
  // An edge spanning dy of the height covers at most dy * rows + 2 rows.
  const budget = INDEX_ENTRIES_PER_VERTEX * v + INDEX_ENTRIES_BASE - 2 * v;
  const preferred = Math.max(256, Math.min(1 << 16, Math.ceil(v / 2)));
  return Math.max(1, Math.min(preferred, Math.floor(budget / Math.max(spans, 1e-9))));
}

function openRing(ring: Ring): Ring {
  const n = ring.length;
  if (n > 1 && ring[0][0] === ring[n - 1][0] && ring[0][1] === ring[n - 1][1]) return ring.slice(0, n - 1);
  return ring;
}

/**
 * Even-odd point-in-polygon through the row index (boundary points are inside): the JS twin of
 * the WASM kernel's test, for single points where crossing into WASM would cost more.
 */
export function pointInPolygonIndexed(poly: PreparedPolygon, px: number, py: number): boolean {
  const { xy, next, rowStart, rowEdges, rows, minX, minY, maxX, maxY, invRowHeight } = poly;
  if (!(px >= minX && px <= maxX && py >= minY && py <= maxY)) return false;
  let row = Math.floor((py - minY) * invRowHeight);
  if (row >= rows) row = rows - 1;
  let inside = false;
  for (let k = rowStart[row]; k < rowStart[row + 1]; k++) {
    const i = rowEdges[k], j = next[i];
    const xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
    if (onSegment(px, py, xi, yi, xj, yj)) return true;
    // Ray to +x; the half-open rule counts a vertex on the ray once.
    if (yi > py !== yj > py && px < xi + ((py - yi) * (xj - xi)) / (yj - yi)) inside = !inside;
  }
  return inside;
}

/* ---- Plain JS reference: the same semantics without any index, for differential tests. ---- */

function onSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): boolean {
  if ((bx - ax) * (py - ay) - (by - ay) * (px - ax) !== 0) return false;
  return px >= Math.min(ax, bx) && px <= Math.max(ax, bx) && py >= Math.min(ay, by) && py <= Math.max(ay, by);
}

/** Even-odd point-in-polygon over all edges; boundary points are inside. Reference, O(vertices). */
export function pointInPolygonReference(poly: PreparedPolygon, px: number, py: number): boolean {
  const { xy, next } = poly;
  let inside = false;
  for (let i = 0; i < next.length; i++) {
    const j = next[i];
    const xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
    if (onSegment(px, py, xi, yi, xj, yj)) return true;
    if (yi > py !== yj > py && px < xi + ((py - yi) * (xj - xi)) / (yj - yi)) inside = !inside;
  }
  return inside;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

/** Does segment a-b lie inside, cross or touch the polygon? Reference, O(vertices). */
export function segmentTouchesPolygonReference(
  poly: PreparedPolygon, ax: number, ay: number, bx: number, by: number,
): boolean {
  if (pointInPolygonReference(poly, ax, ay) || pointInPolygonReference(poly, bx, by)) return true;
  const { xy, next } = poly;
  for (let i = 0; i < next.length; i++) {
    const j = next[i];
    const qx = xy[2 * i], qy = xy[2 * i + 1], rx = xy[2 * j], ry = xy[2 * j + 1];
    const o1 = orient(ax, ay, bx, by, qx, qy);
    const o2 = orient(ax, ay, bx, by, rx, ry);
    const o3 = orient(qx, qy, rx, ry, ax, ay);
    const o4 = orient(qx, qy, rx, ry, bx, by);
    if (o1 !== o2 && o3 !== o4) return true;
    if (o1 === 0 && onSegment(qx, qy, ax, ay, bx, by)) return true;
    if (o2 === 0 && onSegment(rx, ry, ax, ay, bx, by)) return true;
    if (o3 === 0 && onSegment(ax, ay, qx, qy, rx, ry)) return true;
    if (o4 === 0 && onSegment(bx, by, qx, qy, rx, ry)) return true;
  }
  return false;
}
