import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { errorCodes, type FastifyReply } from 'fastify';
import type { JsonText } from '../structures/sharedBuffer.js';

/** Answers over this length are written a slice at a time, so other requests run between the slices. */
export const ANSWER_SLICE = 256 * 1024;

/**
 * `text` in consecutive slices of at most `size` UTF-16 units, never cut between the two halves
 * of a surrogate pair (each slice is encoded to UTF-8 on its own).
 */
export function* textSlices(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + Math.max(2, size));
    if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
    yield text.slice(i, end);
    i = end;
  }
}

/** `bytes` as Buffers of at most `size` bytes over the same memory (no copy). */
function* byteSlices(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield Buffer.from(bytes.buffer, bytes.byteOffset + i, Math.min(size, bytes.length - i));
}

/**
 * Sends JSON text as it is (no serialiser), given whole or as parts to be sent one after the other;
 * a long one (a 100,000-vertex zone is ~6 MB) as a stream of slices. Parts are never joined into
 * one long string: that would copy megabytes in one task of the event loop. Parts given as UTF-8
 * bytes are written from their own memory.
 */
export function sendJsonText(reply: FastifyReply, text: JsonText | readonly JsonText[], sliceSize = ANSWER_SLICE): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const parts = typeof text === 'string' || text instanceof Uint8Array ? [text] : text;
  let length = 0;
  for (const part of parts) length += part.length;
  if (length <= sliceSize && parts.every((part) => typeof part === 'string')) return reply.send(parts.join(''));
  return reply.send(Readable.from(jsonSlices(parts, sliceSize), { objectMode: false }));
}

/** JSON text parts, one after the other, in slices of at most `size` (a long part is never written whole in one task). */
export function* jsonSlices(parts: readonly JsonText[], size = ANSWER_SLICE): Generator<string | Buffer> {
  for (const part of parts) {
    if (typeof part !== 'string') yield* byteSlices(part, size);
    else if (part.length > size) yield* textSlices(part, size);
    else if (part.length > 0) yield part;
  }
}

/** A SharedArrayBuffer that grows in place up to maxByteLength (ES2024; Node 20 has it). */
type GrowableSharedBuffer = SharedArrayBuffer & { grow(byteLength: number): void };
const GrowableSharedBuffer = SharedArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => GrowableSharedBuffer;

/**
 * Reads a request body as fastify's own reader does (the body limit, the Content-Length checked,
 * a stream error a 400), except that a body over ANSWER_SLICE bytes goes into a growable
 * SharedArrayBuffer chunk by chunk as it arrives: megabytes are never concatenated in one task of
 * the event loop, and worker threads read them without a copy. A smaller body comes as a Buffer.
 */
export function readBody(
  payload: Readable & { receivedEncodedLength?: number },
  contentLength: string | undefined,
  limit: number,
  done: (err: Error | null, body?: Uint8Array) => void,
): void {
  const declared = Number(contentLength);
  if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const chunks: Buffer[] = [];
  let shared: GrowableSharedBuffer | undefined;
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const next = received + bytes.length;
    if (next > limit || (payload.receivedEncodedLength ?? 0) > limit) {
      stop();
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
    if (!shared && next > ANSWER_SLICE) {
      shared = new GrowableSharedBuffer(0, { maxByteLength: limit });
      shared.grow(received);
      new Uint8Array(shared).set(Buffer.concat(chunks, received));
      chunks.length = 0;
    }
    if (shared) {
      shared.grow(next);
      new Uint8Array(shared, received, bytes.length).set(bytes);
      // One chunk a turn: a fast client's megabytes would otherwise be read in a few long tasks
      // (libuv reads a socket many times per poll), each mapping fresh pages of the buffer.
      payload.pause();
      setImmediate(() => payload.resume());
    } else {
      chunks.push(bytes);
    }
    received = next;
  }
  function onEnd(err?: Error & { statusCode?: number }) {
    stop();
    if (err) {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      return done(err);
    }
    if (!Number.isNaN(declared) && (payload.receivedEncodedLength || received) !== declared) return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    done(null, shared ? new Uint8Array(shared, 0, received) : Buffer.concat(chunks, received));
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}

/**
 * A request body's text, or undefined when its bytes are not valid UTF-8: decoding would put
 * U+FFFD in their place, and a zone name or site id would be stored other than as sent.
 */
export function utf8Body(body: Buffer): string | undefined {
  return isUtf8(body) ? body.toString('utf8') : undefined;
}

/**
 * A body read by readBody as JSON text: a large one (on a SharedArrayBuffer) stays the UTF-8
 * bytes it came in, checked, not decoded; undefined when its bytes are not valid UTF-8 (utf8Body).
 */
export function utf8BodyText(body: Uint8Array): JsonText | undefined {
  if (body.buffer instanceof SharedArrayBuffer) return isUtf8(body) ? body : undefined;
  return utf8Body(Buffer.from(body.buffer, body.byteOffset, body.length));
}
