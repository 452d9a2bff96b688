import { unstorableTextProblem } from '../zones/validateZone.js';
import { UnstorableText, type ClientRecord, type Job, type JobEvent, type JobStatus, type JobKind, storedZoneFromJson, type StoredZone, type TokenLookup, type ZoneQuota, type ZoneUsage } from './Store.js';

/** Throws UnstorableText when a client-supplied string cannot be stored as text; returns it. */
export function storableText(value: string, field: string): string {
  const problem = unstorableTextProblem(value);
  if (problem) throw new UnstorableText(field, problem);
  return value;
}

/** The quota a write would break, or undefined; `usage` excludes the zone being replaced. */
export function brokenQuotaLimit(quota: ZoneQuota, usage: ZoneUsage, addsZone: boolean, vertices: number): keyof ZoneQuota | undefined {
  if (addsZone && usage.zones + 1 > quota.zones) return 'zones';
  if (usage.vertices + vertices > quota.vertices) return 'vertices';
  return undefined;
}

/** Usage as both databases answer it (PostgreSQL: count/sum as strings). */
export const usageFromRow = (r: { zones: number | string; vertices: number | string | null }): ZoneUsage => ({ zones: Number(r.zones), vertices: Number(r.vertices ?? 0) });

/** The zone columns in insert order. */
export const ZONE_COLUMNS = '(client_id, name, body, revision, created_at, updated_at, vertex_count)';

/** A row's products/body columns are JSON text in both databases. */
export function parseJsonColumn<T>(text: string, column: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`corrupt ${column} column: not JSON`);
  }
}

/** Rows as both databases return them (PostgreSQL gives BIGINT as strings, hence Number()). */
export interface ClientRow {
  client_id: string;
  application_name: string;
  organization_name: string;
  developer_email: string;
  products: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface ZoneRow {
  client_id: string;
  name: string;
  body: string;
  revision: string;
  created_at: number;
  updated_at: number;
}

export const clientFromRow = (r: ClientRow): ClientRecord => ({
  clientId: r.client_id,
  applicationName: r.application_name,
  organizationName: r.organization_name,
  developerEmail: r.developer_email,
  products: parseJsonColumn<string[]>(r.products, 'clients.products'),
  secretHash: r.secret_hash,
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
});

export const zoneFromRow = (r: ZoneRow): StoredZone =>
  storedZoneFromJson(
    { clientId: r.client_id, name: r.name, revision: r.revision, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) },
    r.body,
    (text) => parseJsonColumn(text, 'zones.body'),
  );

export interface TokenRow {
  token_hash: string;
  client_id: string;
  products: string;
  issued_at: number | string;
  expires_at: number | string;
  revoked_at: number | string | null;
}

export const tokenFromRow = (row: TokenRow): TokenLookup => ({
  tokenHash: row.token_hash,
  clientId: row.client_id,
  products: parseJsonColumn(row.products, 'tokens.products'),
  issuedAt: Number(row.issued_at),
  expiresAt: Number(row.expires_at),
  clientRevoked: row.revoked_at !== null,
});

/** Joins a token to its client, for whether the client was revoked since. */
export const TOKEN_QUERY = 'SELECT t.*, c.revoked_at FROM tokens t JOIN clients c ON c.client_id = t.client_id WHERE t.token_hash = ';

/** A jobs row as both databases return it (BIGINT may come back as text from pg). */
export interface JobRow {
  id: string;
  client_id: string;
  kind: string;
  status: string;
  request: string;
  solution: string | null;
  failure: string | null;
  attempts: number | string;
  created_at: number | string;
  updated_at: number | string;
  expires_at: number | string;
}

/** The jobs columns but the solution text (NULL in its place): what a status needs. */
export const JOB_STATUS_COLUMNS = 'id, client_id, kind, status, request, NULL AS solution, failure, attempts, created_at, updated_at, expires_at';

export const jobFromRow = (r: JobRow): Job => ({
  id: r.id,
  clientId: r.client_id,
  kind: r.kind as JobKind,
  status: r.status as JobStatus,
  request: parseJsonColumn<unknown>(r.request, 'jobs.request'),
  ...(r.solution !== null ? { solutionJson: r.solution } : {}),
  ...(r.failure !== null ? { failure: r.failure } : {}),
  attempts: Number(r.attempts),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  expiresAt: Number(r.expires_at),
});

export interface JobEventRow {
  job_id: string;
  status: string;
  at: number | string;
  detail: string | null;
}

export const jobEventFromRow = (r: JobEventRow): JobEvent => ({
  jobId: r.job_id,
  status: r.status as JobStatus,
  at: Number(r.at),
  ...(r.detail !== null ? { detail: r.detail } : {}),
});

/** A job's events from its event rows; a job stored SOLVED has none and one event, SOLVED when it was stored. */
export function jobEventsOf(rows: readonly JobEventRow[], job: Job | undefined): JobEvent[] {
  if (rows.length > 0 || job?.status !== 'SOLVED') return rows.map(jobEventFromRow);
  return [{ jobId: job.id, status: 'SOLVED', at: job.createdAt }];
}
