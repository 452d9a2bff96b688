import { createHash, randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { ClientRecord, ClientStore } from '../store/Store.js';
import { scryptOnPool, type ScryptDerive } from './scryptThreads.js';

/** scrypt cost: N = 2^15 takes about 50 ms and 32 MiB per hash, slow for a guesser. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } satisfies ScryptOptions;
const KEY_BYTES = 32;
/** The cheapest scrypt N a hash may be made with (tests register clients at it). */
export const MIN_SCRYPT_N = 1 << 10;

/**
 * A salted scrypt hash: `scrypt$N$r$p$salt$hash` (base64url), self-describing so costs can rise
 * later and verification reads N from the hash. `N`: default 2^15; a power of two from
 * MIN_SCRYPT_N up.
 */
export async function hashSecret(secret: string, N: number = SCRYPT.N): Promise<string> {
  if (!Number.isInteger(N) || N < MIN_SCRYPT_N || N > SCRYPT.N * 4 || (N & (N - 1)) !== 0) {
    throw new Error(`scrypt N must be a power of two from ${MIN_SCRYPT_N} to ${SCRYPT.N * 4}, got ${N}`);
  }
  const salt = randomBytes(16);
  const key = await scryptOnPool(secret, salt, KEY_BYTES, { ...SCRYPT, N });
  return ['scrypt', N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares in constant time; false for a malformed hash. `derive` runs scrypt (ScryptThreads.derive in the service). */
export async function verifySecret(secret: string, stored: string, derive: ScryptDerive = scryptOnPool): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(secret, Buffer.from(salt, 'base64url'), KEY_BYTES, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Verified against when the client id is unknown, so both failures take the same time. */
let decoyHash: Promise<string> | undefined;
export const decoySecretHash = () => (decoyHash ??= hashSecret(randomBytes(16).toString('hex')));

/** An opaque random string of `bytes` random bytes, URL-safe. */
export const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');

/** A new client id: 24 random bytes, base64url, starting with a letter or digit (an id starting with "-" would read as an option on a command line). */
export function newClientId(): string {
  let id = randomToken(24);
  while (!/^[A-Za-z0-9]/.test(id)) id = randomToken(24);
  return id;
}

/** Access tokens are stored by this hash; the token itself exists only at the client. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The API products detour serves, as Apigee names them. */
export const API_PRODUCTS = ['Trip', 'Restriction Zone', 'Matrix'] as const;
export type ApiProduct = (typeof API_PRODUCTS)[number];

export interface NewClient {
  applicationName: string;
  organizationName?: string;
  developerEmail?: string;
  products?: string[];
}

/**
 * Registers a client and returns its id and secret: the only time the secret exists in clear.
 * Throws on an unknown product name. `scryptN`: the secret hash's cost (hashSecret; default 2^15).
 * The secret is 192 random bits, which no guesser searches at any cost: a cheaper hash (tests use
 * MIN_SCRYPT_N) makes each of its token requests cheaper, not the client easier to impersonate.
 */
export async function registerClient(store: ClientStore, spec: NewClient, now = Date.now(), scryptN?: number): Promise<{ client: ClientRecord; clientSecret: string }> {
  const products = spec.products ?? [...API_PRODUCTS];
  const unknown = products.filter((p) => !(API_PRODUCTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown product ${unknown.map((p) => JSON.stringify(p)).join(', ')}; products are ${API_PRODUCTS.join(', ')}`);
  if (products.length === 0) throw new Error(`a client needs at least one product (${API_PRODUCTS.join(', ')})`);
  if (!spec.applicationName.trim()) throw new Error('a client needs a name');
  const clientSecret = randomToken(24);
  const client: ClientRecord = {
    clientId: newClientId(),
    applicationName: spec.applicationName,
    organizationName: spec.organizationName ?? spec.applicationName,
    developerEmail: spec.developerEmail ?? '',
    products: [...new Set(products)],
    secretHash: await hashSecret(clientSecret, scryptN),
    createdAt: now,
    revokedAt: null,
  };
  await store.addClient(client);
  return { client, clientSecret };
}
