import CRC32 from 'crc-32';

/** node:zlib's crc32 on Node (process.getBuiltinModule: no static node: import), else undefined. */
const zlibCrc32 = ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  ?.getBuiltinModule?.('node:zlib') as { crc32?: (data: Uint8Array, value?: number) => number } | undefined)?.crc32;

/**
 * CRC-32 (IEEE) of `bytes`, continuing from `value` (the CRC of the bytes before): zlib's native
 * one on Node, SheetJS's crc-32 in a browser. Both give the same unsigned numbers.
 */
export function crc32(bytes: Uint8Array, value = 0): number {
  if (zlibCrc32) return zlibCrc32(bytes, value);
  return CRC32.buf(bytes, value) >>> 0;
}

/** The browser's implementation, also on Node (the test compares the two). */
export function crc32Portable(bytes: Uint8Array, value = 0): number {
  return CRC32.buf(bytes, value) >>> 0;
}
