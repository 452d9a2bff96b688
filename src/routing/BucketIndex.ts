/**
 * The buckets of a many-to-many search: entries left at nodes by the backward searches, grouped
 * by node so a forward search reads the entries of a node it reaches in one run. Stamped per
 * grouping (no clearing of the per-node arrays); shared by the CH and the CCH buckets.
 */
export class BucketIndex {
  private readonly bucketOf: Uint32Array;
  private readonly bucketSeen: Uint32Array;
  private stamp = 0;
  /** Bucket b holds the entries order[first[b]] .. order[first[b + 1] - 1]. */
  first = new Uint32Array(1);
  /** Entry indices, bucket after bucket. */
  order = new Uint32Array(0);

  constructor(nodeCount: number) {
    this.bucketOf = new Uint32Array(nodeCount);
    this.bucketSeen = new Uint32Array(nodeCount);
  }

  /** Groups the entries: entry i was left at node entryNode[i]. */
  group(entryNode: number[]): void {
    if (++this.stamp === 0xffffffff) { this.bucketSeen.fill(0); this.stamp = 1; }
    const stamp = this.stamp;
    const { bucketOf, bucketSeen } = this;
    let buckets = 0;
    for (const u of entryNode) if (bucketSeen[u] !== stamp) { bucketSeen[u] = stamp; bucketOf[u] = buckets++; }
    const first = new Uint32Array(buckets + 1);
    for (const u of entryNode) first[bucketOf[u] + 1]++;
    for (let b = 0; b < buckets; b++) first[b + 1] += first[b];
    const fill = first.slice(0, buckets);
    const order = new Uint32Array(entryNode.length);
    for (let i = 0; i < entryNode.length; i++) order[fill[bucketOf[entryNode[i]]]++] = i;
    this.first = first;
    this.order = order;
  }

  /** The bucket of node u in the last grouping, or -1 when no entry was left there. */
  bucket(u: number): number {
    return this.bucketSeen[u] === this.stamp ? this.bucketOf[u] : -1;
  }
}
