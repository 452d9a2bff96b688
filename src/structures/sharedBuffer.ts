/** SharedArrayBuffer where the platform has one (Node; a cross-origin-isolated page), else ArrayBuffer: memory a worker can share. */
export const SharedOrPlainBuffer: ArrayBufferConstructor =
  (typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer) as ArrayBufferConstructor;

/**
 * JSON text, as a string or as its UTF-8 bytes: a large request body is kept as the bytes it came
 * in, on a SharedArrayBuffer, so worker threads read it without a copy and only they decode it.
 */
export type JsonText = string | Uint8Array;

const utf8 = new TextDecoder();

/** The text of JsonText (bytes are decoded: they were checked to be UTF-8 when received). */
export const jsonTextString = (json: JsonText): string => (typeof json === 'string' ? json : utf8.decode(json));
