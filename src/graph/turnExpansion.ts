/**
 * Turn restrictions in a node-based graph: junctions are split into copies, one per "state" a
 * driver can be in there (which restricted road sequence they are part-way along), so a plain
 * node-based search (A*, ALT, a contraction hierarchy) obeys the restrictions without knowing
 * about them.
 *
 * Restrictions arrive as forbidden sequences of directed edges (an `only_*` restriction becomes
 * one forbidden sequence per other way out). The states are the nodes of an Aho-Corasick
 * automaton over those sequences: state q at node v means "the last edges driven are the
 * proper prefix q of some forbidden sequence, and no longer such prefix". The root state is the
 * original node; every other reachable state becomes a copy of v with the out-edges its state
 * allows. A copy's out-edges are a subset of the original's, so a copy never makes a route cheaper.
 *
 * U-turns (driving back along the road just driven) are allowed at junctions where three or more
 * roads meet and at dead ends, never where exactly two roads meet. In a graph without copies a
 * shortest route never turns back (it would revisit a node), so the rule only needs enforcing
 * next to copies: for a copy at v and a road v -> w where w has two roads, the sequence
 * (v -> w, w -> v) is forbidden too, repeated until no copy needs a new one.
 */

/** The base graph the expansion reads: directed edges as tail/head arrays, and road ends per node. */
export interface BaseEdges {
  nodeCount: number;
  tails: Uint32Array;
  heads: Uint32Array;
  /** Per edge: the edge driving the same road the other way, or -1 (a one-way road). */
  reverse: Int32Array;
  /** Per node: how many road ends meet there (a loop road counts twice). */
  roadEnds: Uint32Array;
}

/** The expanded edge list: edges[k] is a base edge id, from node tails[k] to heads[k]. */
export interface ExpandedEdges {
  /** Per new edge: the base edge it copies (its road, direction, length and time). */
  baseEdge: Uint32Array;
  tails: Uint32Array;
  heads: Uint32Array;
  /** Per copy node (ids nodeCount, nodeCount + 1, ...): the node it copies. */
  copyOf: Uint32Array;
  /** Forbidden sequences added for the u-turn rule. */
  uTurnSequences: number;
}

import { Growable } from './growable.js';

const ROOT = 0;

class Automaton {
  readonly child = new Map<number, number>();
  readonly lastEdge: number[] = [-1];
  readonly terminal: boolean[] = [false];
  fail: Int32Array = new Int32Array(1);
  forbidden: Uint8Array = new Uint8Array(1);

  constructor(private readonly edgeCount: number) {}

  private key(state: number, edge: number): number {
    return state * this.edgeCount + edge;
  }

  childOf(state: number, edge: number): number | undefined {
    return this.child.get(this.key(state, edge));
  }

  add(sequence: ArrayLike<number>): void {
    let s = ROOT;
    for (let i = 0; i < sequence.length; i++) {
      const e = sequence[i];
      let c = this.childOf(s, e);
      if (c === undefined) {
        c = this.lastEdge.length;
        this.lastEdge.push(e);
        this.terminal.push(false);
        this.child.set(this.key(s, e), c);
      }
      s = c;
    }
    this.terminal[s] = true;
  }

  /** Failure links (breadth first) and the "some suffix is a whole forbidden sequence" flag. */
  finish(): void {
    const n = this.lastEdge.length;
    const children: number[][] = Array.from({ length: n }, () => []);
    for (const [key, c] of this.child) children[Math.floor(key / this.edgeCount)].push(c);
    this.fail = new Int32Array(n);
    this.forbidden = new Uint8Array(n);
    const queue: number[] = [];
    for (const c of children[ROOT]) {
      this.fail[c] = ROOT;
      this.forbidden[c] = this.terminal[c] ? 1 : 0;
      queue.push(c);
    }
    for (let qi = 0; qi < queue.length; qi++) {
      const u = queue[qi];
      for (const c of children[u]) {
        const e = this.lastEdge[c];
        let f = this.fail[u];
        let next = this.childOf(f, e);
        while (next === undefined && f !== ROOT) {
          f = this.fail[f];
          next = this.childOf(f, e);
        }
        this.fail[c] = next ?? ROOT;
        this.forbidden[c] = this.terminal[c] || this.forbidden[this.fail[c]] ? 1 : 0;
        queue.push(c);
      }
    }
  }

  /** The state after driving edge e in state q. */
  step(q: number, e: number): number {
    for (;;) {
      const c = this.childOf(q, e);
      if (c !== undefined) return c;
      if (q === ROOT) return ROOT;
      q = this.fail[q];
    }
  }
}

/**
 * Splits nodes so that no route drives a forbidden sequence of base edges, and no route turns
 * back where exactly two roads meet next to a split node. Sequences need at least two edges;
 * sequences that are not connected (an edge's head is not the next edge's tail) never match.
 */
export function expandTurns(base: BaseEdges, forbidden: number[][]): ExpandedEdges {
  const { firstOut, outEdges } = outAdjacency(base.nodeCount, base.tails);
  const sequences = forbidden.filter((s) => s.length >= 2);
  const uTurnAdded = new Set<number>();
  for (;;) {
    const automaton = new Automaton(base.tails.length);
    for (const s of sequences) automaton.add(s);
    automaton.finish();
    const result = explore(base, firstOut, outEdges, automaton);
    // The u-turn rule next to copies: a copy at v, a two-way road v -> w, two roads at w.
    let added = 0;
    for (let c = 0; c < result.copyOf.length; c++) {
      const v = result.copyOf[c];
      for (let k = firstOut[v]; k < firstOut[v + 1]; k++) {
        const e = outEdges[k];
        const back = base.reverse[e];
        if (back < 0 || base.roadEnds[base.heads[e]] !== 2 || uTurnAdded.has(e)) continue;
        uTurnAdded.add(e);
        sequences.push([e, back]);
        added++;
      }
    }
    if (added === 0) return { ...result, uTurnSequences: uTurnAdded.size };
  }
}

/** Out-edges per node of an edge list given by tails (CSR by counting sort). */
export function outAdjacency(nodeCount: number, tails: Uint32Array): { firstOut: Uint32Array; outEdges: Uint32Array } {
  const E = tails.length;
  const firstOut = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < E; e++) firstOut[tails[e] + 1]++;
  for (let v = 0; v < nodeCount; v++) firstOut[v + 1] += firstOut[v];
  const outEdges = new Uint32Array(E);
  const fill = firstOut.slice(0, nodeCount);
  for (let e = 0; e < E; e++) outEdges[fill[tails[e]]++] = e;
  return { firstOut, outEdges };
}

/**
 * The expanded edge list: first every plain edge once, from its original tail (its head
 * redirected to a copy when it starts a forbidden sequence), then the edges of the copies.
 */
function explore(
  base: BaseEdges, firstOut: Uint32Array, outEdges: Uint32Array, automaton: Automaton,
): Omit<ExpandedEdges, 'uTurnSequences'> {
  const E = base.tails.length;
  const copyOfState = new Map<number, number>(); // automaton state -> copy node id
  const copyOf: number[] = [];
  const copyState: number[] = [];
  const nodeOf = (state: number, head: number): number => {
    if (state === ROOT) return head;
    let id = copyOfState.get(state);
    if (id === undefined) {
      id = base.nodeCount + copyOf.length;
      copyOfState.set(state, id);
      copyOf.push(head);
      copyState.push(state);
    }
    return id;
  };
  // Plain edges: a sequence needs two edges, so none is forbidden from an original node.
  const rootHeads = new Uint32Array(E);
  for (let e = 0; e < E; e++) rootHeads[e] = nodeOf(automaton.step(ROOT, e), base.heads[e]);
  const baseEdge = new Growable(Uint32Array);
  const tails = new Growable(Uint32Array);
  const heads = new Growable(Uint32Array);
  // Copies are created while expanding; each is expanded once (the list grows as we go).
  for (let c = 0; c < copyOf.length; c++) {
    const original = copyOf[c];
    for (let k = firstOut[original]; k < firstOut[original + 1]; k++) {
      const e = outEdges[k];
      const next = automaton.step(copyState[c], e);
      if (automaton.forbidden[next]) continue;
      baseEdge.push(e);
      tails.push(base.nodeCount + c);
      heads.push(nodeOf(next, base.heads[e]));
    }
  }
  const concat = (first: Uint32Array, rest: Growable<Uint32Array>) => {
    const out = new Uint32Array(first.length + rest.length);
    out.set(first);
    out.set(rest.toArray(), first.length);
    return out;
  };
  const identity = new Uint32Array(E);
  for (let e = 0; e < E; e++) identity[e] = e;
  return {
    baseEdge: concat(identity, baseEdge),
    tails: concat(base.tails, tails),
    heads: concat(rootHeads, heads),
    copyOf: Uint32Array.from(copyOf),
  };
}
