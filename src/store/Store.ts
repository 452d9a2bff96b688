import type { ZoneInput } from '../zones/Zone.js';

/** An API client registered by an operator. The secret itself is never stored, only its hash. */
export interface ClientRecord {
  clientId: string;
  /** Apigee's application_name. */
  applicationName: string;
  organizationName: string;
  developerEmail: string;
  /** API products the client may call, e.g. ["Trip", "Restriction Zone"]. */
  products: string[];
  /** scrypt hash of the secret (see service/credentials.ts). */
  secretHash: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds, or null while the client is active. */
  revokedAt: number | null;
}

/** An issued access token, stored by the SHA-256 of the token so a leaked table grants nothing. */
export interface TokenRecord {
  tokenHash: string;
  clientId: string;
  products: string[];
  /** Epoch milliseconds. */
  issuedAt: number;
  /** Epoch milliseconds; the token is valid while now < expiresAt. */
  expiresAt: number;
}

/** A token found by its hash, with whether its client has been revoked since. */
export interface TokenLookup extends TokenRecord {
  clientRevoked: boolean;
}

/**
 * A restriction zone as a client stored it. The polygons are the source of truth; the roads a zone
 * blocks are derived per graph. `revision` changes on every write, so instances sharing a
 * database can tell a cached calculation is stale.
 */
export interface StoredZone {
  clientId: string;
  name: string;
  body: ZoneInput;
  revision: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

export interface ClientStore {
  addClient(client: ClientRecord): Promise<void>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  listClients(): Promise<ClientRecord[]>;
  /** Marks a client revoked (its tokens stop working); false when no such active client. */
  revokeClient(clientId: string, at: number): Promise<boolean>;
}

export interface TokenStore {
  saveToken(token: TokenRecord): Promise<void>;
  findToken(tokenHash: string): Promise<TokenLookup | undefined>;
  /** Deletes tokens that expired before `now`; returns how many. */
  deleteExpiredTokens(now: number): Promise<number>;
}

/** Per-client limits on stored zones (the service's defaults: DEFAULT_ZONE_QUOTA). */
export interface ZoneQuota {
  /** Most zones one client may store. */
  zones: number;
  /** Most vertices in all of one client's zones together (as sent, a closing vertex included). */
  vertices: number;
}

/** What a client stores now: zones and their vertices in all. */
export interface ZoneUsage {
  zones: number;
  vertices: number;
}

export const DEFAULT_ZONE_QUOTA: ZoneQuota = { zones: 1_000, vertices: 1_000_000 };

/** Vertices of a zone as sent (what quotas count). */
export function zoneVertexCount(body: ZoneInput): number {
  let n = 0;
  for (const g of body.geometries) n += g.vertices.length;
  return n;
}

/** A write refused because it would take the client over its quota; nothing was written. */
export class ZoneQuotaExceeded extends Error {
  constructor(
    /** Which limit: 'zones' or 'vertices'. */
    readonly limit: keyof ZoneQuota,
    readonly quota: ZoneQuota,
    /** The client's usage before the write. */
    readonly usage: ZoneUsage,
    /** The zone's vertices (the count the write would add or set). */
    readonly zoneVertices: number,
  ) {
    super(`zone quota exceeded (${limit})`);
  }
}

/**
 * A client-supplied string no store can keep as text (NUL, lone surrogate): refused before any
 * query, so both stores answer the same (PostgreSQL would fail the query).
 */
export class UnstorableText extends Error {
  constructor(
    /** What the string is, e.g. "client_id" or "name". */
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

/** A page of a listing: skip `offset` rows, then at most `limit`. */
export interface Page {
  offset: number;
  limit: number;
}

export interface ZoneStore {
  /** The client's zones, oldest first (then by name); a page of them when `page` is given. */
  listZones(clientId: string, page?: Page): Promise<StoredZone[]>;
  /** How many zones and vertices the client stores. */
  zoneUsage(clientId: string): Promise<ZoneUsage>;
  getZone(clientId: string, name: string): Promise<StoredZone | undefined>;
  /** The client's zones among `names` (absent names are simply missing from the result). */
  getZones(clientId: string, names: string[]): Promise<StoredZone[]>;
  /** Every client's zones (for recalculation at start-up). */
  allZones(): Promise<StoredZone[]>;
  /**
   * Inserts; false when the client already has a zone of that name. With a quota, throws
   * ZoneQuotaExceeded instead of going over it; the check and the insert are one transaction
   * serialised per client, so parallel inserts (from any instance) cannot exceed it.
   */
  insertZone(zone: StoredZone, quota?: ZoneQuota): Promise<boolean>;
  /** Replaces body, revision and updatedAt; false when the zone does not exist. Quota as insertZone (vertices). */
  replaceZone(zone: StoredZone, quota?: ZoneQuota): Promise<boolean>;
  /** False when the zone does not exist. */
  deleteZone(clientId: string, name: string): Promise<boolean>;
}

/** Everything the service persists: SQLite (embedded, default) or PostgreSQL (shared). */
export interface Store extends ClientStore, TokenStore, ZoneStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the data lives, for logs (file path or database host, never a password). */
  readonly location: string;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
