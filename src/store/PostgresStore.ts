import pg from 'pg';
import { MIGRATIONS, migrationSql, type ZoneName } from './schemaSql.js';
import {
  brokenQuotaLimit, clientFromRow, JOB_STATUS_COLUMNS, jobEventsOf, jobFromRow, storableText, tokenFromRow, TOKEN_QUERY, usageFromRow, ZONE_COLUMNS, zoneFromRow,
  type JobEventRow, type JobRow, type TokenRow,
} from './rows.js';
import {
  ZoneQuotaExceeded, storedVertexCount, zoneBodyJson, type Job, type JobEvent, type JobStatus, type JobKind, type ClientRecord, type Page, type Store, type StoredZone, type TokenLookup, type TokenRecord, type ZoneQuota, type ZoneUsage,
} from './Store.js';

/** Any 64-bit number of our own: serialises migrations when several instances start at once. */
const MIGRATION_LOCK = 0x64657430;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresStoreOptions {
  /** postgres://user@host:port/database */
  connectionString: string;
  /** Tables live in this schema (created if missing); default the connection's search_path. */
  schema?: string;
  /** Pool size (default 10). */
  maxConnections?: number;
}

/**
 * A zone's JSON as a query parameter: a large body's UTF-8 bytes as they are, never decoded on the
 * event loop (node-postgres sends a Buffer in binary format, which a text column takes as its
 * bytes in the connection's UTF-8, checked by the server); a string as it is.
 */
function zoneBodyParam(z: StoredZone): string | Buffer {
  const json = z.bodyJson;
  return json instanceof Uint8Array ? Buffer.from(json.buffer, json.byteOffset, json.byteLength) : zoneBodyJson(z);
}

/**
 * The shared store: PostgreSQL, for several detour instances acting as one service. Migrations
 * run at open, under an advisory lock.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly location: string;
  /** The connection pool; the service's login limits keep their counts through it too. */
  readonly pool: pg.Pool;

  private constructor(pool: pg.Pool, location: string) {
    this.pool = pool;
    this.location = location;
  }

  /** Connects, creates the schema if asked, and applies pending migrations. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5000,
      options: schema ? `-c search_path=${schema}` : undefined,
    });
    // An idle client losing its connection (server restart) must not crash the process.
    pool.on('error', () => {});
    const url = new URL(options.connectionString);
    const store = new PostgresStore(pool, `postgresql://${url.host}${url.pathname}${schema ? ` (schema ${schema})` : ''}`);
    try {
      await store.migrate(schema);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  private async migrate(schema?: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await client.query('CREATE TABLE IF NOT EXISTS detour_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
        const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM detour_migrations');
        const applied = rows[0].v ?? 0;
        for (let i = applied; i < MIGRATIONS.length; i++) {
          await client.query('BEGIN');
          try {
            const m = MIGRATIONS[i];
            const sql = migrationSql(m, 'postgres');
            if (sql !== undefined) await client.query(sql);
            else if (typeof m === 'object' && 'renameZones' in m) {
              const { rows: names } = await client.query<ZoneName>('SELECT client_id, name FROM zones');
              for (const r of m.renameZones(names)) {
                await client.query("UPDATE zones SET name = $1, body = jsonb_set(body::jsonb, '{name}', to_jsonb($1::text))::text WHERE client_id = $2 AND name = $3", [r.to, r.clientId, r.from]);
              }
            }
            await client.query('INSERT INTO detour_migrations VALUES ($1, $2)', [i + 1, Date.now()]);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          }
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async addClient(c: ClientRecord): Promise<void> {
    await this.pool.query('INSERT INTO clients VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      storableText(c.clientId, 'client_id'),
      c.applicationName,
      c.organizationName,
      c.developerEmail,
      JSON.stringify(c.products),
      c.secretHash,
      c.createdAt,
      c.revokedAt,
    ]);
  }

  async getClient(clientId: string): Promise<ClientRecord | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM clients WHERE client_id = $1', [storableText(clientId, 'client_id')]);
    return rows[0] && clientFromRow(rows[0]);
  }

  async listClients(): Promise<ClientRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM clients ORDER BY created_at, client_id');
    return rows.map(clientFromRow);
  }

  async revokeClient(clientId: string, at: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE clients SET revoked_at = $1 WHERE client_id = $2 AND revoked_at IS NULL', [at, storableText(clientId, 'client_id')]);
    return r.rowCount === 1;
  }

  async saveToken(t: TokenRecord): Promise<void> {
    await this.pool.query('INSERT INTO tokens VALUES ($1, $2, $3, $4, $5)', [t.tokenHash, t.clientId, JSON.stringify(t.products), t.issuedAt, t.expiresAt]);
  }

  async findToken(tokenHash: string): Promise<TokenLookup | undefined> {
    const { rows } = await this.pool.query<TokenRow>(`${TOKEN_QUERY}$1`, [tokenHash]);
    return rows[0] && tokenFromRow(rows[0]);
  }

  async deleteExpiredTokens(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM tokens WHERE expires_at < $1', [now])).rowCount ?? 0;
  }

  async listZones(clientId: string, page?: Page): Promise<StoredZone[]> {
    const sql = 'SELECT * FROM zones WHERE client_id = $1 ORDER BY created_at, name';
    const params = [storableText(clientId, 'client_id')];
    const { rows } = page ? await this.pool.query(`${sql} LIMIT $2 OFFSET $3`, [...params, page.limit, page.offset]) : await this.pool.query(sql, params);
    return rows.map(zoneFromRow);
  }

  async zoneUsage(clientId: string): Promise<ZoneUsage> {
    return this.usage(this.pool, storableText(clientId, 'client_id'), null);
  }

  /** The client's usage, leaving out the zone named `except` (being replaced). */
  private async usage(db: pg.Pool | pg.PoolClient, clientId: string, except: string | null): Promise<ZoneUsage> {
    const { rows } = await db.query('SELECT count(*) AS zones, sum(vertex_count) AS vertices FROM zones WHERE client_id = $1 AND name IS DISTINCT FROM $2', [clientId, except]);
    return usageFromRow(rows[0]);
  }

  async getZone(clientId: string, name: string): Promise<StoredZone | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM zones WHERE client_id = $1 AND name = $2', [storableText(clientId, 'client_id'), storableText(name, 'name')]);
    return rows[0] && zoneFromRow(rows[0]);
  }

  async getZones(clientId: string, names: string[]): Promise<StoredZone[]> {
    if (names.length === 0) return [];
    for (const n of names) storableText(n, 'name');
    const { rows } = await this.pool.query('SELECT * FROM zones WHERE client_id = $1 AND name = ANY($2::text[])', [storableText(clientId, 'client_id'), names]);
    return rows.map(zoneFromRow);
  }

  async zoneRevisions(clientId: string, names: string[]): Promise<Array<{ name: string; revision: string }>> {
    if (names.length === 0) return [];
    for (const n of names) storableText(n, 'name');
    const { rows } = await this.pool.query('SELECT name, revision FROM zones WHERE client_id = $1 AND name = ANY($2::text[])', [storableText(clientId, 'client_id'), names]);
    return rows as Array<{ name: string; revision: string }>;
  }

  async allZones(): Promise<StoredZone[]> {
    const { rows } = await this.pool.query('SELECT * FROM zones ORDER BY client_id, created_at, name');
    return rows.map(zoneFromRow);
  }

  /**
   * Runs a zone write with the quota check in one transaction holding the client's row lock, so
   * one client's zone writes are serialised across instances (READ COMMITTED: each statement after
   * the lock sees the writes committed before it). FOR NO KEY UPDATE leaves token inserts (which
   * take FOR KEY SHARE through their foreign key) unblocked.
   */
  private async quotaWrite(z: StoredZone, quota: ZoneQuota, replacing: boolean, write: (db: pg.PoolClient) => Promise<boolean>): Promise<boolean> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      try {
        await db.query('SELECT 1 FROM clients WHERE client_id = $1 FOR NO KEY UPDATE', [z.clientId]);
        // Whether the zone exists, and the usage of the client's other zones, in one round trip.
        const { rows } = await db.query(
          `SELECT bool_or(name = $2) AS found, count(*) FILTER (WHERE name <> $2) AS zones, sum(vertex_count) FILTER (WHERE name <> $2) AS vertices
             FROM zones WHERE client_id = $1`,
          [z.clientId, z.name],
        );
        let done = false;
        if ((rows[0].found === true) === replacing) {
          const vertices = storedVertexCount(z);
          const usage = usageFromRow(rows[0]);
          const limit = brokenQuotaLimit(quota, usage, !replacing, vertices);
          if (limit) throw new ZoneQuotaExceeded(limit, quota, usage, vertices);
          done = await write(db);
        }
        await db.query('COMMIT');
        return done;
      } catch (err) {
        await db.query('ROLLBACK');
        throw err;
      }
    } finally {
      db.release();
    }
  }

  async insertZone(z: StoredZone, quota?: ZoneQuota): Promise<boolean> {
    const params = [storableText(z.clientId, 'client_id'), storableText(z.name, 'name'), zoneBodyParam(z), z.revision, z.createdAt, z.updatedAt, storedVertexCount(z)];
    const insert = async (db: pg.Pool | pg.PoolClient) => (await db.query(`INSERT INTO zones ${ZONE_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (client_id, name) DO NOTHING`, params)).rowCount === 1;
    return quota ? this.quotaWrite(z, quota, false, insert) : insert(this.pool);
  }

  async replaceZone(z: StoredZone, quota?: ZoneQuota): Promise<boolean> {
    const params = [zoneBodyParam(z), z.revision, z.updatedAt, storedVertexCount(z), storableText(z.clientId, 'client_id'), storableText(z.name, 'name')];
    const update = async (db: pg.Pool | pg.PoolClient) =>
      (await db.query('UPDATE zones SET body = $1, revision = $2, updated_at = $3, vertex_count = $4 WHERE client_id = $5 AND name = $6', params)).rowCount === 1;
    return quota ? this.quotaWrite(z, quota, true, update) : update(this.pool);
  }

  async deleteZone(clientId: string, name: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM zones WHERE client_id = $1 AND name = $2', [storableText(clientId, 'client_id'), storableText(name, 'name')])).rowCount === 1;
  }

  async insertJob(job: Job): Promise<void> {
    return this.insertJobs([job]);
  }

  async insertJobs(jobs: readonly Job[]): Promise<void> {
    await this.inTransaction(async (db) => {
      // Solutions stored as answered can be computed again: the commit does not wait for the WAL flush.
      if (jobs.every((job) => job.status === 'SOLVED')) await db.query('SET LOCAL synchronous_commit = off');
      for (const job of jobs) {
        await db.query('INSERT INTO jobs (id, client_id, kind, status, request, solution, attempts, created_at, updated_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9)',
          [job.id, job.clientId, job.kind, job.status, JSON.stringify(job.request), job.solutionJson ?? null, job.createdAt, job.updatedAt, job.expiresAt]);
        if (job.status !== 'SOLVED') await addJobEvent(db, job.id, job.status, job.createdAt);
      }
    });
  }

  async openJobs(clientId: string, kind: JobKind): Promise<number> {
    const { rows } = await this.pool.query("SELECT count(*) AS n FROM jobs WHERE client_id = $1 AND kind = $2 AND status IN ('ENQUEUED', 'PROCESSING')", [clientId, kind]);
    return Number(rows[0].n);
  }

  async getJob(clientId: string, kind: JobKind, id: string, now: number, withSolution = false): Promise<Job | undefined> {
    const { rows } = await this.pool.query<JobRow>(
      `SELECT ${withSolution ? '*' : JOB_STATUS_COLUMNS} FROM jobs WHERE id = $1 AND client_id = $2 AND kind = $3 AND expires_at > $4`, [id, clientId, kind, now]);
    return rows[0] && jobFromRow(rows[0]);
  }

  async jobEvents(clientId: string, kind: JobKind, id: string, now: number): Promise<JobEvent[]> {
    const { rows } = await this.pool.query<JobEventRow>(`SELECT e.* FROM job_events e JOIN jobs j ON j.id = e.job_id
      WHERE j.id = $1 AND j.client_id = $2 AND j.kind = $3 AND j.expires_at > $4 ORDER BY e.seq`, [id, clientId, kind, now]);
    return jobEventsOf(rows, rows.length > 0 ? undefined : await this.getJob(clientId, kind, id, now));
  }

  async claimJob(now: number, leaseMillis: number, maxAttempts: number, taker?: string): Promise<Job | undefined> {
    return this.inTransaction(async (db) => {
      for (;;) {
        // SKIP LOCKED: instances polling at once each take a different job, none waits on another.
        const { rows } = await db.query<JobRow>(`SELECT * FROM jobs WHERE (status = 'ENQUEUED' OR (status = 'PROCESSING' AND lease_until < $1))
          AND expires_at > $1 ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`, [now]);
        const row = rows[0];
        if (!row) return undefined;
        if (Number(row.attempts) >= maxAttempts) {
          const failure = `given up after ${row.attempts} attempts: the instances that took it up stopped before finishing`;
          await db.query("UPDATE jobs SET status = 'FAILED', failure = $1, lease_until = NULL, updated_at = $2 WHERE id = $3", [failure, now, row.id]);
          await addJobEvent(db, row.id, 'FAILED', now, failure);
          continue;
        }
        await db.query("UPDATE jobs SET status = 'PROCESSING', attempts = attempts + 1, lease_until = $1, taker = $2, updated_at = $3 WHERE id = $4", [now + leaseMillis, taker ?? null, now, row.id]);
        await addJobEvent(db, row.id, 'PROCESSING', now);
        return jobFromRow({ ...row, status: 'PROCESSING', attempts: Number(row.attempts) + 1, updated_at: now });
      }
    });
  }

  async releaseJobsOf(taker: string, now: number): Promise<number> {
    const { rowCount } = await this.pool.query("UPDATE jobs SET lease_until = $1 WHERE status = 'PROCESSING' AND taker = $2 AND lease_until >= $3", [now - 1, taker, now]);
    return rowCount ?? 0;
  }

  async renewJobLease(id: string, now: number, leaseMillis: number): Promise<boolean> {
    const { rowCount } = await this.pool.query("UPDATE jobs SET lease_until = $1 WHERE id = $2 AND status = 'PROCESSING'", [now + leaseMillis, id]);
    return rowCount === 1;
  }

  async finishJob(id: string, outcome: { solutionJson: string } | { failure: string }, now: number): Promise<boolean> {
    return this.inTransaction(async (db) => {
      const status = 'solutionJson' in outcome ? 'SOLVED' : 'FAILED';
      const { rowCount } = await db.query("UPDATE jobs SET status = $1, solution = $2, failure = $3, lease_until = NULL, updated_at = $4 WHERE id = $5 AND status = 'PROCESSING'",
        [status, 'solutionJson' in outcome ? outcome.solutionJson : null, 'failure' in outcome ? outcome.failure : null, now, id]);
      if (rowCount === 1) await addJobEvent(db, id, status, now, 'failure' in outcome ? outcome.failure : undefined);
      return rowCount === 1;
    });
  }

  async deleteExpiredJobs(now: number): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM jobs WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  }

  /** Runs `work` in one transaction on one pooled connection. */
  private async inTransaction<T>(work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const result = await work(db);
      await db.query('COMMIT');
      return result;
    } catch (err) {
      await db.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      db.release();
    }
  }
}

/** A job's next event (seq per job; the job row is locked or new in the caller's transaction). */
async function addJobEvent(db: pg.PoolClient, jobId: string, status: JobStatus, at: number, detail?: string): Promise<void> {
  await db.query('INSERT INTO job_events SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4 FROM job_events WHERE job_id = $1', [jobId, status, at, detail ?? null]);
}
