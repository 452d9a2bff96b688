import { NodeRecords } from '../structures/NodeRecords.js';

/**
 * The buckets of a many-to-many search: entries left at nodes by the backward searches, grouped
 * by node so a forward search reads the entries of a node it reaches in one run. Nodes find their
 * bucket in a NodeRecords of the nodes with entries, made per grouping (bucket b is its entry b):
 * nothing per graph node, and a table the size of those nodes stays in the caches while the
 * forward searches look up every node they settle. Shared by the CH and the overlay's
 * many-to-many (meetInBuckets).
 */
export class BucketIndex {
  /** The nodes of the last grouping: node u's entry is its bucket. */
  private readonly nodes: NodeRecords;
  /** Bucket b holds the entries order[first[b]] .. order[first[b + 1] - 1]. */
  first = new Uint32Array(1);
  /** Entry indices, bucket after bucket. */
  order = new Uint32Array(0);

  constructor(nodeCount: number) {
    this.nodes = new NodeRecords(nodeCount);
  }

  /** Groups the entries: entry i was left at node entryNode[i]. */
  group(entryNode: number[]): void {
    const { nodes } = this;
    nodes.clear();
    const bucketOf = new Uint32Array(entryNode.length);
    for (let i = 0; i < entryNode.length; i++) {
      const b = nodes.find(entryNode[i]);
      bucketOf[i] = b >= 0 ? b : nodes.add(entryNode[i]);
    }
    const buckets = nodes.count;
    const first = new Uint32Array(buckets + 1);
    for (let i = 0; i < entryNode.length; i++) first[bucketOf[i] + 1]++;
    for (let b = 0; b < buckets; b++) first[b + 1] += first[b];
    const fill = first.slice(0, buckets);
    const order = new Uint32Array(entryNode.length);
    for (let i = 0; i < entryNode.length; i++) order[fill[bucketOf[i]]++] = i;
    this.first = first;
    this.order = order;
  }

  /** The bucket of node u in the last grouping, or -1 when no entry was left there. */
  bucket(u: number): number {
    return this.nodes.find(u);
  }
}

/**
 * A search that calls `settled` for each node it settles, with its cost, the other metric's value
 * and, when the cost holds penalties, the cost without them (plain).
 */
export type SettlingSearch = (settled: (node: number, cost: number, second: number, plain: number) => void) => void;

/**
 * The bucket phase of a many-to-many search (Knopp et al.): `backward(t)` searches from target t
 * leave (target, cost, second) entries at the nodes they settle, grouped by node; `forward(s)`
 * searches from source s scan the entries of the nodes they settle. Fills `outCost[s * T + t]`,
 * `outSecond` and `outPlain` with the cheapest meeting (Infinity where none); a search given no
 * endpoints leaves its row or column at Infinity.
 */
export function meetInBuckets(
  index: BucketIndex, sourceCount: number, targetCount: number,
  forward: (s: number) => SettlingSearch | undefined, backward: (t: number) => SettlingSearch | undefined,
  outCost: Float64Array, outSecond: Float64Array, outPlain?: Float64Array,
): void {
  outCost.fill(Infinity);
  outSecond.fill(Infinity);
  outPlain?.fill(Infinity);
  const entryNode: number[] = [], entryTarget: number[] = [], entryCost: number[] = [], entrySecond: number[] = [], entryPlain: number[] = [];
  for (let t = 0; t < targetCount; t++) {
    backward(t)?.((u, c, s2, p) => { entryNode.push(u); entryTarget.push(t); entryCost.push(c); entrySecond.push(s2); entryPlain.push(p); });
  }
  index.group(entryNode);
  const { first, order } = index;
  const E = entryNode.length;
  // Copied in bucket order, so a scan reads consecutive memory.
  const bTarget = new Uint32Array(E), bCost = new Float64Array(E), bSecond = new Float64Array(E), bPlain = new Float64Array(E);
  for (let k = 0; k < E; k++) {
    const i = order[k];
    bTarget[k] = entryTarget[i]; bCost[k] = entryCost[i]; bSecond[k] = entrySecond[i]; bPlain[k] = entryPlain[i];
  }
  for (let s = 0; s < sourceCount; s++) {
    const row = s * targetCount;
    forward(s)?.((u, c, s2, p) => {
      const b = index.bucket(u);
      if (b < 0) return;
      for (let k = first[b], end = first[b + 1]; k < end; k++) {
        const total = c + bCost[k];
        const i = row + bTarget[k];
        if (total < outCost[i]) {
          outCost[i] = total;
          outSecond[i] = s2 + bSecond[k];
          if (outPlain) outPlain[i] = p + bPlain[k];
        }
      }
    });
  }
}
