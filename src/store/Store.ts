import { jsonTextString, type JsonText } from '../structures/sharedBuffer.js';
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
  /** The zone in the API's shape; from the store or a JSON body it is parsed on first read only. */
  readonly body: ZoneInput;
  /**
   * The body as JSON text, when known: stores write it as it is and answers are cut from it, so a
   * large zone (up to 100,000 vertices, ~6 MB) is never parsed or serialised on the event loop. A
   * large body received is its UTF-8 bytes (JsonText), which threads read without a copy.
   */
  bodyJson?: JsonText;
  /** Vertices of the body (zoneVertexCount), when known. */
  vertexCount?: number;
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

/**
 * A StoredZone whose body is JSON text, parsed the first time `body` is read (trips read zones on
 * every request and most never need the vertices).
 */
export function storedZoneFromJson(fields: Omit<StoredZone, 'body' | 'bodyJson'>, bodyJson: JsonText, parse: (text: string) => ZoneInput = JSON.parse): StoredZone {
  let body: ZoneInput | undefined;
  const zone = { ...fields, bodyJson } as StoredZone;
  // Enumerable, so a copy ({...zone}) still has a body (read then).
  Object.defineProperty(zone, 'body', { enumerable: true, get: () => (body ??= parse(jsonTextString(bodyJson))) });
  return zone;
}

/** The zone's body as JSON text: as received or read when known (bytes decoded), else serialised. */
export const zoneBodyJson = (z: StoredZone): string => (z.bodyJson !== undefined ? jsonTextString(z.bodyJson) : JSON.stringify(z.body));

/** The zone's vertices: as counted when received, else counted from the body. */
export const storedVertexCount = (z: StoredZone): number => z.vertexCount ?? zoneVertexCount(z.body);

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
  /**
   * The revisions of the client's zones among `names`, without their bodies: a trip reads these
   * and reads the bodies of only the zones whose revision is not calculated already.
   */
  zoneRevisions(clientId: string, names: string[]): Promise<Array<{ name: string; revision: string }>>;
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

/** A job's state (Maplink's names). */
export type JobStatus = 'ENQUEUED' | 'PROCESSING' | 'SOLVED' | 'FAILED';

/** What a job computes: a distance matrix (Matrix API) or a trip (Trip API, stored or asynchronous). */
export type JobKind = 'matrix' | 'trip';

/**
 * A problem posted to an asynchronous API, or a synchronous trip kept for reading back: the
 * request as posted, and once done its solution or why it failed. A synchronous trip is stored
 * SOLVED at once.
 */
export interface Job {
  id: string;
  clientId: string;
  kind: JobKind;
  status: JobStatus;
  /** The validated request body. */
  request: unknown;
  /**
   * The solution body as JSON text, once SOLVED: stored and answered as it is, never parsed on
   * the way (a 100 x 100 matrix is about 1 MB; parsing it at every status poll held the event loop).
   */
  solutionJson?: string;
  /** Why, once FAILED. */
  failure?: string;
  /** Times an instance took it up. */
  attempts: number;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** After this the job and its solution are gone (404). */
  expiresAt: number;
}

/** A status change of a job. */
export interface JobEvent {
  jobId: string;
  status: JobStatus;
  /** Epoch milliseconds. */
  at: number;
  detail?: string;
}

/**
 * Jobs, shared by every instance on one database: any instance may take up a job (claimJob:
 * atomic, one taker; a taker that dies leaves a lease that runs out) and any answers for it.
 */
export interface JobStore {
  /**
   * Stores a new job: ENQUEUED, with its first event; or SOLVED with its solution (a synchronous
   * trip's answer, kept to be read back), whose one event jobEvents reads from the job itself.
   */
  insertJob(job: Job): Promise<void>;
  /**
   * Stores new jobs in one transaction. When all are SOLVED (solutions stored as answered, which
   * can be computed again) the commit does not wait for the disk: they survive a killed process,
   * and a power cut or a database server crash may lose the last ones.
   */
  insertJobs(jobs: readonly Job[]): Promise<void>;
  /** The client's jobs of that kind not finished yet (ENQUEUED or PROCESSING). */
  openJobs(clientId: string, kind: JobKind): Promise<number>;
  /** The client's job of that kind, unless absent or expired at `now`; without its solution text unless `withSolution`. */
  getJob(clientId: string, kind: JobKind, id: string, now: number, withSolution?: boolean): Promise<Job | undefined>;
  /** The events of the client's job of that kind, oldest first (empty when absent or expired); a job stored SOLVED: SOLVED at its creation. */
  jobEvents(clientId: string, kind: JobKind, id: string, now: number): Promise<JobEvent[]>;
  /**
   * Takes up the oldest job that is ENQUEUED, or PROCESSING with its lease run out (its taker
   * died), unless it has had `maxAttempts` already (then it FAILS): marks it PROCESSING with a
   * lease until now + leaseMillis. Atomic across instances: a job goes to one taker at a time.
   */
  claimJob(now: number, leaseMillis: number, maxAttempts: number, taker?: string): Promise<Job | undefined>;
  /**
   * Ends the leases of the PROCESSING jobs `taker` took up (an instance started again under the
   * same name: its predecessor died with them), so they are taken up at once; returns how many.
   */
  releaseJobsOf(taker: string, now: number): Promise<number>;
  /** Extends a PROCESSING job's lease to now + leaseMillis (its taker is alive); false when it is no longer PROCESSING. */
  renewJobLease(id: string, now: number, leaseMillis: number): Promise<boolean>;
  /** Records SOLVED with its solution or FAILED with why; false when the job is gone or no longer PROCESSING. */
  finishJob(id: string, outcome: { solutionJson: string } | { failure: string }, now: number): Promise<boolean>;
  /** Deletes jobs expired at `now` with their events; returns how many jobs. */
  deleteExpiredJobs(now: number): Promise<number>;
}

/** Everything the service persists: SQLite (embedded, default) or PostgreSQL (shared). */
export interface Store extends ClientStore, TokenStore, ZoneStore, JobStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the data lives, for logs (file path or database host, never a password). */
  readonly location: string;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
