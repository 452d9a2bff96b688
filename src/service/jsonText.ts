import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

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

/**
 * Sends JSON text as it is (no serialiser), given whole or as parts to be sent one after the other;
 * a long one (a 100,000-vertex zone is ~6 MB) as a stream of slices. Parts are never joined into
 * one long string: that would copy megabytes in one task of the event loop.
 */
export function sendJsonText(reply: FastifyReply, text: string | readonly string[], sliceSize = ANSWER_SLICE): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const parts = typeof text === 'string' ? [text] : text;
  let length = 0;
  for (const part of parts) length += part.length;
  if (length <= sliceSize) return reply.send(parts.join(''));
  return reply.send(Readable.from((function* () {
    for (const part of parts) yield* textSlices(part, sliceSize);
  })(), { objectMode: false }));
}

/**
 * A request body's text, or undefined when its bytes are not valid UTF-8: decoding would put
 * U+FFFD in their place, and a zone name or site id would be stored other than as sent.
 */
export function utf8Body(body: Buffer): string | undefined {
  return isUtf8(body) ? body.toString('utf8') : undefined;
}
