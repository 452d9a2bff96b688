/** Graph files on disk: graphCodec's format, written and read section by section with node:fs. */
import { closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DetourError, ErrorCode } from '../errors.js';
import { crc32 } from './crc32.js';
import { crcOnThread } from './crcThread.js';
import { CHUNK_BYTES, corrupt, inlineCrc32, parse, pieces, type ByteSource, type FileSection, type GraphFileSections } from './graphCodec.js';
import type { RoadGraph } from './RoadGraph.js';

export { GRAPH_MAGIC, GRAPH_FORMAT_VERSION } from './graphCodec.js';

/**
 * Writes a graph file atomically (a reader never sees half a file), section by section. A path
 * that cannot be written (no such folder, a directory, no permission, a full disk) is a
 * DetourError FILE_NOT_WRITABLE naming it.
 */
export function saveGraphFile(graph: RoadGraph, path: string, extra: FileSection[] = []): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const unwritable = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `the folder ${dirname(path)} does not exist`
      : code === 'EISDIR' ? 'it is a directory'
        : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
          : code === 'ENOSPC' ? 'no space left on the device' : (err as Error).message;
    return new DetourError(ErrorCode.FILE_NOT_WRITABLE, `cannot write the graph file ${path}: ${why}`, { path });
  };
  let fd: number;
  try {
    fd = openSync(tmp, 'w');
  } catch (err) {
    throw unwritable(err);
  }
  try {
    let crc = 0;
    const write = (p: Uint8Array) => {
      for (let done = 0; done < p.length;) done += writeSync(fd, p, done, p.length - done);
    };
    for (const p of pieces(graph, extra)) {
      write(p);
      crc = crc32(p, crc);
    }
    const tail = new Uint8Array(4);
    new DataView(tail.buffer).setUint32(0, crc, true);
    write(tail);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (err) {
    try { closeSync(fd); } catch { /* already closed */ }
    try { unlinkSync(tmp); } catch { /* never created or already renamed */ }
    throw err instanceof DetourError ? err : unwritable(err);
  }
}

/** Files from this size on have their checksum computed on a worker thread while they are read (crcOnThread). */
const CHECKSUM_THREAD_BYTES = 64 * 2 ** 20;

/**
 * Loads a graph file written by saveGraphFile, reading it in chunks straight into shared typed
 * arrays (any size; no whole-file buffer), and what `layer` makes of its sections. Missing,
 * truncated or foreign files get a clear error. The checksum of a file of `checksumThreadBytes`
 * or more is computed on a worker thread beside the reading (a country's file: seconds saved).
 */
export function loadGraphFile<T>(path: string, layer?: GraphFileSections<T>, checksumThreadBytes = CHECKSUM_THREAD_BYTES): { graph: RoadGraph; layer?: T } {
  let fd: number;
  let checksum: ReturnType<typeof crcOnThread> | undefined;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw openError(err, path);
  }
  try {
    let size: number;
    try {
      const stat = fstatSync(fd);
      if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      size = stat.size;
    } catch (err) {
      throw openError(err, path);
    }
    checksum = size >= checksumThreadBytes && typeof SharedArrayBuffer === 'function' ? crcOnThread() : undefined;
    let position = 0;
    return parse({
      size,
      read(into) {
        let got = 0;
        while (got < into.length) {
          let n: number;
          try {
            n = readSync(fd, into, got, into.length - got, position);
          } catch (err) {
            throw openError(err, path);
          }
          if (n === 0) break;
          got += n;
          position += n;
        }
        return got;
      },
    }, path, layer, checksum ?? inlineCrc32());
  } finally {
    checksum?.close();
    closeSync(fd);
  }
}

function openError(err: unknown, path: string): DetourError {
  if (err instanceof DetourError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new DetourError(ErrorCode.FILE_NOT_FOUND, `graph file not found: ${path}`, { path });
  if (code === 'EISDIR') return new DetourError(ErrorCode.INVALID_INPUT, `graph file ${path} is a directory, not a file`, { path });
  return new DetourError(ErrorCode.INVALID_INPUT, `cannot read graph file ${path}: ${(err as Error).message}`, { path });
}
