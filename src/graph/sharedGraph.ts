import { ARRAY_KEYS, RoadGraph, type RoadGraphArrays } from './RoadGraph.js';

type AnyTyped = RoadGraphArrays[keyof RoadGraphArrays] | Float64Array;

/** True when a typed array's memory is a SharedArrayBuffer (so a worker sees it without a copy). */
export function isSharedArray(array: ArrayBufferView): boolean {
  return typeof SharedArrayBuffer === 'function' && array.buffer instanceof SharedArrayBuffer;
}

/** True when every array of the graph lives on a SharedArrayBuffer. */
export function isSharedGraph(graph: RoadGraph): boolean {
  return ARRAY_KEYS.every((key) => isSharedArray(graph[key]));
}

/** One typed array copied onto a new SharedArrayBuffer of exactly its size. */
function toShared<T extends AnyTyped>(array: T): T {
  const Type = array.constructor as new (buffer: ArrayBufferLike) => T;
  const copy = new Type(new SharedArrayBuffer(array.byteLength));
  (copy as unknown as { set(a: ArrayLike<number>): void }).set(array);
  return copy;
}

/**
 * `value` with every typed array in it (through plain objects and arrays) on SharedArrayBuffers,
 * those already there kept, the others copied: what a thread made, posted to others to use as
 * it is (a posted SharedArrayBuffer is shared, not cloned). `value` itself where the platform has
 * no SharedArrayBuffer.
 */
export function withSharedArrays<T>(value: T): T {
  if (typeof SharedArrayBuffer !== 'function') return value;
  if (ArrayBuffer.isView(value)) return (isSharedArray(value) ? value : toShared(value as unknown as AnyTyped)) as T;
  if (Array.isArray(value)) return value.map(withSharedArrays) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSharedArrays(v)])) as T;
  }
  return value;
}

// Copies are kept per graph so several workers (or calculators) of one graph share one copy.
const copies = new WeakMap<RoadGraph, RoadGraphArrays>();

/**
 * The graph's arrays on SharedArrayBuffers, for posting to a worker thread (a posted
 * SharedArrayBuffer is shared, not cloned): the graph's own arrays when they already are shared
 * (no copy, no extra bytes), else one copy made once per graph (the graph's byteSize in bytes).
 */
export function sharedGraphArrays(graph: RoadGraph): RoadGraphArrays {
  if (isSharedGraph(graph)) return graph.arrays();
  let arrays = copies.get(graph);
  if (!arrays) {
    const out = {} as Record<string, AnyTyped>;
    for (const key of ARRAY_KEYS) out[key] = isSharedArray(graph[key]) ? graph[key] : toShared(graph[key]);
    arrays = out as unknown as RoadGraphArrays;
    copies.set(graph, arrays);
  }
  return arrays;
}

/**
 * A graph whose every array is on a SharedArrayBuffer: the graph itself when that already holds,
 * else a new RoadGraph over a copy of its arrays (see sharedGraphArrays).
 */
export function sharedGraph(graph: RoadGraph): RoadGraph {
  return isSharedGraph(graph) ? graph : new RoadGraph(sharedGraphArrays(graph), graph.meta);
}
