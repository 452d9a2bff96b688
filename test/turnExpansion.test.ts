/**
 * expandTurns on random graphs with random, overlapping forbidden sequences, against a brute
 * force: Dijkstra over (last edges driven) states that checks every sequence literally and the
 * u-turn rule (no turning back where exactly two roads meet) everywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandTurns, type BaseEdges } from '../src/graph/turnExpansion.js';
import { seededRandom } from '../bench/seededRandom.js';

interface RandomGraph {
  base: BaseEdges;
  weight: number[];
}

/** A grid of side n; each road two-way or (sometimes) one-way, random weights. */
function randomGrid(n: number, random: () => number): RandomGraph {
  const tails: number[] = [], heads: number[] = [], weight: number[] = [], reverse: number[] = [];
  const roadEnds = new Uint32Array(n * n);
  const road = (u: number, v: number) => {
    if (random() < 0.25) return; // a missing road: degree-2 and dead-end nodes appear
    roadEnds[u]++;
    roadEnds[v]++;
    const w = 1 + Math.floor(random() * 9);
    const oneway = random() < 0.2;
    const f = tails.length;
    tails.push(u); heads.push(v); weight.push(w); reverse.push(-1);
    if (!oneway) {
      tails.push(v); heads.push(u); weight.push(w); reverse.push(f);
      reverse[f] = f + 1;
    }
  };
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (c + 1 < n) road(r * n + c, r * n + c + 1);
      if (r + 1 < n) road(r * n + c, (r + 1) * n + c);
    }
  }
  return {
    base: {
      nodeCount: n * n, tails: Uint32Array.from(tails), heads: Uint32Array.from(heads),
      reverse: Int32Array.from(reverse), roadEnds,
    },
    weight,
  };
}

/** Random connected edge walks of 2 to 4 edges (some extend or overlap others). */
function randomSequences(g: BaseEdges, count: number, random: () => number): number[][] {
  const out: number[][] = [];
  const outOf = (v: number) => [...g.tails.keys()].filter((e) => g.tails[e] === v);
  while (out.length < count) {
    const len = 2 + Math.floor(random() * 3);
    let e = Math.floor(random() * g.tails.length);
    // Overlaps: start on a middle edge of an earlier sequence (where the automaton's failure links matter).
    const longer = out.filter((q) => q.length >= 3);
    if (longer.length > 0 && random() < 0.5) {
      const q = longer[Math.floor(random() * longer.length)];
      e = q[1 + Math.floor(random() * (q.length - 2))];
    }
    const seq = [e];
    while (seq.length < len) {
      const next = outOf(g.heads[seq.at(-1)!]);
      if (next.length === 0) break;
      seq.push(next[Math.floor(random() * next.length)]);
    }
    if (seq.length >= 2) out.push(seq);
  }
  return out;
}

function bruteForce(g: RandomGraph, forbidden: number[][], s: number, t: number): number {
  const { base, weight } = g;
  const maxLen = Math.max(2, ...forbidden.map((q) => q.length));
  const best = new Map<string, number>();
  const queue: [number, number[]][] = [];
  const allowed = (history: number[], f: number): boolean => {
    const last = history.at(-1);
    if (last !== undefined && base.reverse[last] === f && base.roadEnds[base.heads[last]] === 2) return false;
    const path = [...history, f];
    return !forbidden.some((q) => q.length <= path.length && q.every((e, i) => path[path.length - q.length + i] === e));
  };
  const push = (c: number, history: number[]) => {
    const key = history.join(',');
    if ((best.get(key) ?? Infinity) <= c) return;
    best.set(key, c);
    queue.push([c, history]);
  };
  if (s === t) return 0;
  for (let f = 0; f < base.tails.length; f++) if (base.tails[f] === s && allowed([], f)) push(weight[f], [f]);
  while (queue.length) {
    let m = 0;
    for (let i = 1; i < queue.length; i++) if (queue[i][0] < queue[m][0]) m = i;
    const [c, history] = queue.splice(m, 1)[0];
    if (best.get(history.join(','))! < c) continue;
    const v = base.heads[history.at(-1)!];
    if (v === t) return c;
    for (let f = 0; f < base.tails.length; f++) {
      if (base.tails[f] !== v || !allowed(history, f)) continue;
      push(c + weight[f], [...history, f].slice(-(maxLen - 1)));
    }
  }
  return Infinity;
}

/** Plain node Dijkstra on the expanded graph from s to t or any copy of t. */
function expandedCost(g: RandomGraph, x: ReturnType<typeof expandTurns>, s: number, t: number): number {
  const n = g.base.nodeCount + x.copyOf.length;
  const dist = new Float64Array(n).fill(Infinity);
  const done = new Uint8Array(n);
  const isTarget = (v: number) => v === t || (v >= g.base.nodeCount && x.copyOf[v - g.base.nodeCount] === t);
  dist[s] = 0;
  for (;;) {
    let u = -1;
    for (let v = 0; v < n; v++) if (!done[v] && dist[v] < Infinity && (u < 0 || dist[v] < dist[u])) u = v;
    if (u < 0) return Infinity;
    if (isTarget(u)) return dist[u];
    done[u] = 1;
    for (let k = 0; k < x.tails.length; k++) {
      if (x.tails[k] !== u) continue;
      const v = x.heads[k];
      const d = dist[u] + g.weight[x.baseEdge[k]];
      if (d < dist[v]) dist[v] = d;
    }
  }
}

test('expandTurns: node-based routes on the copies equal a brute force over edge histories (random graphs and sequences)', () => {
  const random = seededRandom(99);
  let compared = 0, restricted = 0;
  for (let round = 0; round < 40; round++) {
    const g = randomGrid(4 + (round % 2), random);
    const forbidden = randomSequences(g.base, 6 + Math.floor(random() * 14), random);
    const x = expandTurns(g.base, forbidden);
    // Every copy's edges are copies of its original's edges (same base edges, a subset).
    for (let k = 0; k < x.tails.length; k++) {
      const tail = x.tails[k] < g.base.nodeCount ? x.tails[k] : x.copyOf[x.tails[k] - g.base.nodeCount];
      assert.equal(g.base.tails[x.baseEdge[k]], tail);
    }
    const free = expandTurns(g.base, []);
    for (let s = 0; s < g.base.nodeCount; s++) {
      for (let t = 0; t < g.base.nodeCount; t++) {
        const expected = bruteForce(g, forbidden, s, t);
        assert.equal(expandedCost(g, x, s, t), expected, `round ${round}: ${s} -> ${t}`);
        if (expected !== expandedCost(g, free, s, t)) restricted++;
        compared++;
      }
    }
  }
  assert.ok(restricted > 50, `restrictions change ${restricted} of ${compared} routes`);
});
