import { createHmac, randomBytes } from 'node:crypto';

/**
 * Recently verified client credentials, so a client that asks for tokens often costs an HMAC,
 * not a scrypt. Entries are keyed by HMAC-SHA256(client id, secret) under a key that is random
 * per process and never leaves it: neither the secret nor an offline-guessable hash of it is
 * kept. Each entry remembers the stored secret hash it was verified against, so a changed
 * secret misses; the caller still reads the client (revoked?) on every hit. Bounded: at most
 * maxEntries, the oldest dropped first.
 */
export class VerifiedSecrets {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { secretHash: string; expiresAt: number }>();

  /**
   * @param ttlMillis how long a verification is trusted (0 disables the cache)
   * @param maxEntries oldest entries are dropped beyond this many
   */
  constructor(
    readonly ttlMillis: number,
    readonly maxEntries = 10_000,
  ) {}

  /** The cache key of these credentials (the HMAC; lengths are prefixed so no two pairs collide). */
  keyOf(clientId: string, secret: string): string {
    return createHmac('sha256', this.key).update(`${clientId.length}:${clientId}`).update(secret).digest('base64url');
  }

  /**
   * The stored secret hash `key` was verified against less than ttlMillis before `now` (epoch
   * ms), else undefined. A hit counts only if the client's stored hash is still this one.
   */
  get(key: string, now: number): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.secretHash;
  }

  /** Remembers a successful verification at `now` (epoch ms). */
  add(key: string, secretHash: string, now: number): void {
    if (this.ttlMillis <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { secretHash, expiresAt: now + this.ttlMillis });
    // Maps iterate in insertion order: the first key is the oldest.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Entries held (some may have expired). */
  get size(): number {
    return this.entries.size;
  }
}
