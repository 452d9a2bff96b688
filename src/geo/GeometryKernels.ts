import { DetourError, ErrorCode } from '../errors.js';
import type { PreparedPolygon } from './PreparedPolygon.js';

/** The slice of the WebAssembly API used here (not in the ES lib; Node and browsers both have it). */
interface WasmApi {
  Module: new (bytes: ArrayBufferView | ArrayBuffer) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface KernelExports {
  memory: { buffer: ArrayBuffer };
  allocate(bytes: number): number;
  resetHeap(): void;
  classifyPoints(pts: number, count: number, out: number, ...poly: number[]): number;
  classifySegments(segs: number, count: number, out: number, ...poly: number[]): number;
  classifyPolylines(pts: number, start: number, count: number, out: number, ...poly: number[]): number;
}

/** The kernels with one polygon copied into WASM memory (valid inside `GeometryKernels.withPolygon`). */
export interface BoundPolygon {
  /** 1 per point (interleaved lon, lat) inside or on the polygon, else 0. */
  classifyPoints(points: Float64Array): Uint8Array;
  /** 1 per segment (ax, ay, bx, by) that lies inside, crosses or touches the polygon. */
  classifySegments(segments: Float64Array): Uint8Array;
  /** 1 per polyline (points[start[i]..start[i+1]) as lon, lat pairs) that touches the polygon. */
  classifyPolylines(points: Float64Array, start: Int32Array): Uint8Array;
}

/** Where the build puts the module, seen from src/geo (tsx) and from dist/src/geo (compiled). */
const CANDIDATES = ['../../build/kernels.wasm', '../../../build/kernels.wasm'];

/**
 * node:fs on Node (process.getBuiltinModule), undefined in a browser: no static node: import, so
 * this module bundles for the browser, where the kernels are installed from bytes or a URL.
 */
function nodeFs(): typeof import('node:fs') | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:fs') as typeof import('node:fs') | undefined;
}

/**
 * The AssemblyScript point-in-polygon and segment/polygon kernels (build/kernels.wasm). Load once
 * and reuse; calls are synchronous. In a browser, pass the module's bytes to `fromBytes`.
 */
export class GeometryKernels {
  private static shared?: GeometryKernels;
  private readonly exports: KernelExports;
  private busy = false;

  private constructor(instance: { exports: unknown }) {
    this.exports = instance.exports as KernelExports;
  }

  /** Compiles the kernels from the bytes of kernels.wasm. */
  static fromBytes(bytes: ArrayBufferView | ArrayBuffer, source = 'kernels.wasm'): GeometryKernels {
    try {
      const module = new WA.Module(bytes);
      const instance = new WA.Instance(module, {
        env: {
          abort(_msg: number, _file: number, line: number, column: number) {
            throw new Error(`geometry kernel aborted at ${line}:${column}`);
          },
        },
      });
      const k = new GeometryKernels(instance);
      for (const name of ['allocate', 'resetHeap', 'classifyPoints', 'classifySegments', 'classifyPolylines']) {
        if (typeof (k.exports as unknown as Record<string, unknown>)[name] !== 'function') {
          throw new Error(`export ${name} is missing`);
        }
      }
      return k;
    } catch (err) {
      throw new DetourError(ErrorCode.WASM_UNAVAILABLE, `${source} is not a usable detour kernel module: ${(err as Error).message}. Rebuild it with npm run build.`);
    }
  }

  /** Fetches and compiles kernels.wasm from a URL (a browser: the package's build/kernels.wasm, served). */
  static async fromUrl(url: string | URL): Promise<GeometryKernels> {
    const res = await fetch(url);
    if (!res.ok) throw new DetourError(ErrorCode.WASM_UNAVAILABLE, `cannot fetch the kernels from ${String(url)}: HTTP ${res.status}`);
    return GeometryKernels.fromBytes(await res.arrayBuffer(), String(url));
  }

  /** Makes these the kernels every zone calculation uses (a browser must, before calculating a zone). */
  static install(kernels: GeometryKernels): void {
    GeometryKernels.shared = kernels;
  }

  /** The installed kernels; on Node, the package's own build/kernels.wasm, loaded on first use. */
  static load(): GeometryKernels {
    if (GeometryKernels.shared) return GeometryKernels.shared;
    const fs = nodeFs();
    if (!fs) {
      throw new DetourError(ErrorCode.WASM_UNAVAILABLE, 'no kernels installed: call GeometryKernels.install(await GeometryKernels.fromUrl(url to kernels.wasm)) first');
    }
    const url = CANDIDATES.map((c) => new URL(c, import.meta.url)).find((u) => fs.existsSync(u));
    if (!url) {
      throw new DetourError(ErrorCode.WASM_UNAVAILABLE, 'build/kernels.wasm not found: run npm run build (it compiles assembly/ with asc)');
    }
    GeometryKernels.shared = GeometryKernels.fromBytes(fs.readFileSync(url), decodeURIComponent(url.pathname));
    return GeometryKernels.shared;
  }

  /**
   * Copies a polygon into WASM memory, runs `work` with kernels bound to it, then frees all the
   * memory used. Not re-entrant (the kernel heap is one bump allocator).
   */
  withPolygon<T>(polygon: PreparedPolygon, work: (bound: BoundPolygon) => T): T {
    if (this.busy) throw new Error('GeometryKernels.withPolygon is not re-entrant');
    this.busy = true;
    const k = this.exports;
    try {
      const xy = this.copy(polygon.xy);
      const next = this.copy(polygon.next);
      const rowStart = this.copy(polygon.rowStart);
      const rowEdges = this.copy(polygon.rowEdges);
      const poly = [
        xy, next, rowStart, rowEdges, polygon.rows,
        polygon.minX, polygon.minY, polygon.maxX, polygon.maxY, polygon.invRowHeight,
      ];
      const bound: BoundPolygon = {
        classifyPoints: (points) => {
          const count = points.length >> 1;
          const p = this.copy(points);
          const out = k.allocate(count);
          k.classifyPoints(p, count, out, ...poly);
          return new Uint8Array(k.memory.buffer, out, count).slice();
        },
        classifySegments: (segments) => {
          const count = segments.length >> 2;
          const p = this.copy(segments);
          const out = k.allocate(count);
          k.classifySegments(p, count, out, ...poly);
          return new Uint8Array(k.memory.buffer, out, count).slice();
        },
        classifyPolylines: (points, start) => {
          const count = start.length - 1;
          const p = this.copy(points);
          const s = this.copy(start);
          const out = k.allocate(Math.max(1, count));
          k.classifyPolylines(p, s, count, out, ...poly);
          return new Uint8Array(k.memory.buffer, out, count).slice();
        },
      };
      return work(bound);
    } finally {
      k.resetHeap();
      this.busy = false;
    }
  }

  private copy(array: Float64Array | Int32Array): number {
    const ptr = this.exports.allocate(Math.max(8, array.byteLength));
    // Views are made after allocating: growing memory detaches older ones.
    new Uint8Array(this.exports.memory.buffer, ptr, array.byteLength).set(
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength),
    );
    return ptr;
  }
}
