import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonText } from '../structures/sharedBuffer.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import { openSqlite, type SqlDatabase, type SqlStatement, type SqliteDriverName } from './sqliteDriver.js';
import { MIGRATIONS, migrationSql, type ZoneName } from './schemaSql.js';
import {
  brokenQuotaLimit, clientFromRow, JOB_STATUS_COLUMNS, jobEventsOf, jobFromRow, parseJsonColumn, storableText, tokenFromRow, TOKEN_QUERY, usageFromRow, ZONE_COLUMNS, zoneFromRow,
  type ClientRow, type JobEventRow, type JobRow, type TokenRow, type ZoneRow,
} from './rows.js';
import {
  ZoneQuotaExceeded, storedVertexCount, storedZoneFromJson, zoneBodyJson, type Job, type JobEvent, type JobStatus, type JobKind, type ClientRecord, type Page, type Store, type StoredZone, type TokenLookup, type TokenRecord, type ZoneQuota, type ZoneUsage,
} from './Store.js';

/**
 * Zone bodies of more JSON characters than this (about 4,000 vertices) are written by a thread of
 * their own (sqliteZoneWriter.ts): a 100,000-vertex body is ~6 MB, tens of milliseconds to write
 * and sync, which the event loop would otherwise wait through.
 */
export const LARGE_ZONE_WRITE = 256 * 1024;

/**
 * Zones of more vertices than this (about LARGE_ZONE_WRITE bytes of JSON and up) are read and
 * deleted by the writer thread too: reading megabytes of text into a string, or freeing their
 * pages, would be one long task of the event loop.
 */
export const LARGE_ZONE_VERTICES = 4_000;

/** How long a write waits for another connection's write lock before it fails with SQLITE_BUSY. */
const BUSY_MILLIS = 5000;

/** Whether a binding's error is SQLite's BUSY (better-sqlite3: code SQLITE_BUSY...; node:sqlite: errcode 5, extended or not). */
function isBusy(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown };
  return (typeof e?.code === 'string' && e.code.startsWith('SQLITE_BUSY')) || (typeof e?.errcode === 'number' && (e.errcode & 0xff) === 5);
}

export interface SqliteStoreOptions {
  /**
   * Write large zone bodies (LARGE_ZONE_WRITE) and checkpoint the write-ahead log on a thread
   * with its own connection (default: yes, for a file; an in-memory database has no second
   * connection).
   */
  zoneWriter?: boolean;
  /** How often what this connection committed is checkpointed on that thread (ms, default CHECKPOINT_MILLIS). */
  checkpointMillis?: number;
}

/**
 * How often committed writes are copied from the write-ahead log into the database file, once the
 * log has grown past WAL_ON_THREAD_BYTES. SQLite would otherwise checkpoint inside the commit that
 * fills the log's 1,000 pages, on the event loop: copying and syncing 4 MB there held it for about
 * 20 ms every 23 stored trips of 166 KB.
 */
export const CHECKPOINT_MILLIS = 1000;
/**
 * A log this big moves a store's checkpoints to the writer thread for good; below it SQLite's own
 * are left alone (a store that writes little never starts the thread).
 */
export const WAL_ON_THREAD_BYTES = 1 << 20;

/** What SqliteStore posts to its zone writer thread (sqliteZoneWriter.ts), and the messages between them. */
export interface ZoneWriterData {
  location: string;
  driver?: SqliteDriverName;
}

/** A zone as it crosses the thread boundary: its fields and body text or bytes (never a parsed body). */
export type ZoneWriteFields = Omit<StoredZone, 'body' | 'bodyJson'> & { bodyJson: JsonText };

export type ZoneWriteRequest =
  | { id: number; op: 'insertZone' | 'replaceZone'; zone: ZoneWriteFields; quota?: ZoneQuota }
  | { id: number; op: 'getZone'; clientId: string; name: string }
  | { id: number; op: 'deleteZone'; clientId: string; name: string }
  | { id: number; op: 'checkpoint' };

/** A request to the writer thread before it is numbered (WorkerRequests does that). */
type ZoneThreadRequest<R = ZoneWriteRequest> = R extends { id: number } ? Omit<R, 'id'> : never;

export type ZoneWriteReply =
  | { id: number; written: boolean }
  /** getZone: the body as UTF-8 bytes on a SharedArrayBuffer; null when there is no such zone. */
  | { id: number; zone: ZoneWriteFields | null }
  | { id: number; checkpointed: true }
  | { id: number; quotaExceeded: { limit: keyof ZoneQuota; quota: ZoneQuota; usage: { zones: number; vertices: number }; zoneVertices: number } }
  | { id: number; error: string; name?: string; code?: string };

/**
 * The embedded store: one SQLite file in WAL mode with synchronous=FULL, so a write that returned
 * survives a killed process and a power cut (stored trip answers: a killed process; insertJobs).
 * Several processes may open the same file.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: SqlDatabase;
  private readonly zoneWriterOn: boolean;
  private zoneWriter?: WorkerRequests<ZoneWriteReply>;
  private readonly checkpoints?: NodeJS.Timeout;
  /** Whether checkpoints are the writer thread's (the log grew past WAL_ON_THREAD_BYTES). */
  private walOnThread = false;
  /** This connection's total_changes() when it last asked for a checkpoint. */
  private checkpointedChanges = -1;
  /** Whether a checkpoint asked of the writer thread has not answered yet. */
  private checkpointing = false;
  /** Zone writes under way on the writer thread (each holds the database's write lock a while). */
  private readonly threadWrites = new Set<Promise<unknown>>();

  /** `driver`: the SQLite binding (default: node:sqlite on Node 24+, else better-sqlite3; see sqliteDriver.ts). */
  constructor(readonly location: string, private readonly driver?: SqliteDriverName, options: SqliteStoreOptions = {}) {
    this.zoneWriterOn = options.zoneWriter ?? location !== ':memory:';
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    this.db = openSqlite(location, driver);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${BUSY_MILLIS}`);
    this.migrate();
    if (this.zoneWriterOn) {
      this.checkpoints = setInterval(() => {
        try {
          this.checkpoint();
        } catch {
          // a store that cannot be read now (disk error, closed under it): the next second tries again
        }
      }, options.checkpointMillis ?? CHECKPOINT_MILLIS).unref();
    }
  }

  /**
   * Once the log has grown past WAL_ON_THREAD_BYTES, copies it into the database file on the
   * writer thread's connection whenever this connection committed anything since the last time
   * (PASSIVE: it waits for no reader or writer, and commits go on meanwhile), SQLite's own
   * checkpoints in this connection's commits being off; on this thread where no writer thread
   * can be had.
   */
  private checkpoint(): void {
    if (this.checkpointing || !this.db.open) return;
    if (!this.walOnThread) {
      let logBytes = 0;
      try {
        logBytes = statSync(`${this.location}-wal`).size;
      } catch {
        // no log file yet
      }
      if (logBytes < WAL_ON_THREAD_BYTES) return;
      this.walOnThread = true;
      this.db.pragma('wal_autocheckpoint = 0');
    }
    const changes = Number((this.statement('SELECT total_changes() AS n').get() as { n: number | bigint }).n);
    if (changes === this.checkpointedChanges) return;
    this.checkpointedChanges = changes;
    const writer = this.writerThread();
    if (!writer) {
      this.checkpointHere();
      return;
    }
    this.checkpointing = true;
    writer.request({ op: 'checkpoint' }).then(
      (reply) => {
        this.checkpointing = false;
        if ('error' in reply) this.checkpointHere();
      },
      () => {
        // The thread went away (closed, or it failed): this connection copies the log instead.
        this.checkpointing = false;
        this.checkpointHere();
      },
    );
  }

  /** A checkpoint on this connection, unless it is closed; a failed one leaves the log to the next. */
  private checkpointHere(): void {
    try {
      if (this.db.open) this.checkpointWal();
    } catch {
      // the log stays as it is (its commits are durable there); the next second tries again
    }
  }

  /** The writer thread, started on first use; undefined when it cannot start. */
  private writerThread(): WorkerRequests<ZoneWriteReply> | undefined {
    if (this.zoneWriter) return this.zoneWriter;
    try {
      const data: ZoneWriterData = { location: this.location, driver: this.driver };
      const started: WorkerRequests<ZoneWriteReply> = new WorkerRequests(startModuleWorker(import.meta.url, 'sqliteZoneWriter', data), () => {
        if (this.zoneWriter === started) this.zoneWriter = undefined;
      });
      return (this.zoneWriter = started);
    } catch {
      return undefined;
    }
  }

  private readonly statements = new Map<string, SqlStatement>();

  /** Prepared once per SQL text: preparing costs more than running these small queries. */
  private statement(sql: string): SqlStatement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private migrate(): void {
    this.db.immediate(() => {
      const applied = Number(this.db.pragma('user_version'));
      for (let i = applied; i < MIGRATIONS.length; i++) {
        const m = MIGRATIONS[i];
        const sql = migrationSql(m, 'sqlite');
        if (sql !== undefined) this.db.exec(sql);
        else if (typeof m === 'object' && 'renameZones' in m) {
          const rename = this.db.prepare("UPDATE zones SET name = ?, body = json_set(body, '$.name', ?) WHERE client_id = ? AND name = ?");
          for (const r of m.renameZones(this.db.prepare('SELECT client_id, name FROM zones').all() as ZoneName[])) rename.run(r.to, r.to, r.clientId, r.from);
        }
      }
      if (applied < MIGRATIONS.length) this.db.pragma(`user_version = ${MIGRATIONS.length}`);
    });
  }

  /** Copies what the write-ahead log holds into the database file, as far as no reader needs it kept (PASSIVE). */
  checkpointWal(): void {
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    clearInterval(this.checkpoints);
    const writer = this.zoneWriter;
    this.zoneWriter = undefined;
    if (writer) await writer.close();
    if (this.db.open) this.db.close();
  }

  /**
   * Writes a large zone on the writer thread; undefined when the zone is small or no thread can
   * be had (the caller then writes it here).
   */
  private async writeOnThread(op: 'insertZone' | 'replaceZone', z: StoredZone, quota?: ZoneQuota): Promise<boolean | undefined> {
    if (!this.zoneWriterOn || z.bodyJson === undefined || z.bodyJson.length <= LARGE_ZONE_WRITE) return undefined;
    // The fields one by one: a StoredZone's body is a getter that would parse the text to clone it.
    const { clientId, name, revision, createdAt, updatedAt, vertexCount, bodyJson } = z;
    const reply = await this.onThread({ op, zone: { clientId, name, revision, createdAt, updatedAt, vertexCount, bodyJson }, quota });
    if (reply === undefined || 'written' in reply) return reply?.written;
    if ('quotaExceeded' in reply) {
      const { limit, quota: q, usage, zoneVertices } = reply.quotaExceeded;
      throw new ZoneQuotaExceeded(limit, q, usage, zoneVertices);
    }
    throw new Error(`the writer thread answered a zone write with ${JSON.stringify(reply)}`);
  }

  /**
   * Whether the zone is one the writer thread reads and deletes (LARGE_ZONE_VERTICES); false too
   * when there is no such zone or no such thread (readZone then reads it here).
   */
  private largeOnThread(clientId: string, name: string): boolean {
    if (!this.zoneWriterOn) return false;
    // From the index alone: the row's vertex_count lies after the body, past its overflow pages.
    const row = this.statement('SELECT vertex_count FROM zones INDEXED BY zones_without_body WHERE client_id = ? AND name = ?').get(clientId, name) as { vertex_count: number | bigint } | undefined;
    return row !== undefined && Number(row.vertex_count) > LARGE_ZONE_VERTICES;
  }

  /**
   * Sends a request to the writer thread; undefined when no thread can be had. A SQLite error the
   * thread met is thrown here as it saw it (its class does not cross threads; name and code do).
   */
  private async onThread(request: ZoneThreadRequest): Promise<ZoneWriteReply | undefined> {
    const writer = this.writerThread();
    if (!writer) return undefined;
    const replied = writer.request(request);
    if (request.op !== 'getZone') {
      this.threadWrites.add(replied);
      const settled = () => this.threadWrites.delete(replied);
      replied.then(settled, settled);
    }
    const reply = await replied;
    if ('error' in reply) throw Object.assign(new Error(reply.error), { name: reply.name ?? 'Error', code: reply.code });
    return reply;
  }

  /**
   * Runs a write on this connection without waiting for the database's write lock on the event
   * loop: first after the zone writes under way on the writer thread (which hold it while they
   * write and sync megabytes), then, should another connection hold it (another process, a
   * checkpoint), tried again on a timer with SQLite's busy handler off (busy_timeout 0 for the
   * write), up to BUSY_MILLIS, after which it fails with SQLITE_BUSY as the busy timeout would.
   * Reads keep the busy timeout: WAL readers meet a lock only in rare moments (recovery).
   */
  private async writing<T>(write: () => T): Promise<T> {
    while (this.threadWrites.size > 0) await Promise.allSettled([...this.threadWrites]);
    const deadline = Date.now() + BUSY_MILLIS;
    for (let wait = 1; ; wait = Math.min(2 * wait, 50)) {
      this.statement('PRAGMA busy_timeout = 0').get();
      try {
        return write();
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) throw err;
      } finally {
        this.statement(`PRAGMA busy_timeout = ${BUSY_MILLIS}`).get();
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  async addClient(c: ClientRecord): Promise<void> {
    storableText(c.clientId, 'client_id');
    await this.writing(() => this.db
      .prepare('INSERT INTO clients VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(c.clientId, c.applicationName, c.organizationName, c.developerEmail, JSON.stringify(c.products), c.secretHash, c.createdAt, c.revokedAt));
  }

  async getClient(clientId: string): Promise<ClientRecord | undefined> {
    const row = this.statement('SELECT * FROM clients WHERE client_id = ?').get(storableText(clientId, 'client_id')) as ClientRow | undefined;
    return row && clientFromRow(row);
  }

  async listClients(): Promise<ClientRecord[]> {
    return (this.statement('SELECT * FROM clients ORDER BY created_at, client_id').all() as ClientRow[]).map(clientFromRow);
  }

  async revokeClient(clientId: string, at: number): Promise<boolean> {
    storableText(clientId, 'client_id');
    return this.writing(() => this.statement('UPDATE clients SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL').run(at, clientId).changes === 1);
  }

  async saveToken(t: TokenRecord): Promise<void> {
    await this.writing(() => this.statement('INSERT INTO tokens VALUES (?, ?, ?, ?, ?)').run(t.tokenHash, t.clientId, JSON.stringify(t.products), t.issuedAt, t.expiresAt));
  }

  async findToken(tokenHash: string): Promise<TokenLookup | undefined> {
    const row = this.statement(`${TOKEN_QUERY}?`).get(tokenHash) as TokenRow | undefined;
    return row && tokenFromRow(row);
  }

  async deleteExpiredTokens(now: number): Promise<number> {
    return this.writing(() => this.statement('DELETE FROM tokens WHERE expires_at < ?').run(now).changes);
  }

  async listZones(clientId: string, page?: Page): Promise<StoredZone[]> {
    storableText(clientId, 'client_id');
    if (this.zoneWriterOn) {
      // The page's names and sizes from the indexes alone; its large zones read by the writer thread.
      const sql = `SELECT z.name, w.vertex_count FROM zones z INDEXED BY zones_client_order
        JOIN zones w INDEXED BY zones_without_body ON w.client_id = z.client_id AND w.name = z.name
        WHERE z.client_id = ? ORDER BY z.created_at, z.name`;
      const heads = (page ? this.statement(`${sql} LIMIT ? OFFSET ?`).all(clientId, page.limit, page.offset) : this.statement(sql).all(clientId)) as Array<{ name: string; vertex_count: number | bigint }>;
      if (heads.some((h) => Number(h.vertex_count) > LARGE_ZONE_VERTICES)) {
        const zones = await Promise.all(heads.map((h) => this.readZone(clientId, h.name, Number(h.vertex_count) > LARGE_ZONE_VERTICES)));
        return zones.filter((z) => z !== undefined);
      }
    }
    const sql = 'SELECT * FROM zones WHERE client_id = ? ORDER BY created_at, name';
    const rows = page ? this.statement(`${sql} LIMIT ? OFFSET ?`).all(clientId, page.limit, page.offset) : this.statement(sql).all(clientId);
    return (rows as ZoneRow[]).map(zoneFromRow);
  }

  async zoneUsage(clientId: string): Promise<ZoneUsage> {
    return this.usage(storableText(clientId, 'client_id'), null);
  }

  /** The client's usage, leaving out the zone named `except` (being replaced). */
  private usage(clientId: string, except: string | null): ZoneUsage {
    const row = this.statement('SELECT count(*) AS zones, sum(vertex_count) AS vertices FROM zones WHERE client_id = ? AND name IS NOT ?').get(clientId, except);
    return usageFromRow(row as { zones: number; vertices: number | null });
  }

  async getZone(clientId: string, name: string): Promise<StoredZone | undefined> {
    storableText(clientId, 'client_id');
    storableText(name, 'name');
    return this.readZone(clientId, name, this.largeOnThread(clientId, name));
  }

  /** A zone read here, or, when `onThread` (a large zone) and the thread can be had, by the writer thread as bytes. */
  private async readZone(clientId: string, name: string, onThread: boolean): Promise<StoredZone | undefined> {
    if (onThread) {
      const reply = await this.onThread({ op: 'getZone', clientId, name });
      if (reply !== undefined && 'zone' in reply) {
        if (reply.zone === null) return undefined;
        const { bodyJson, ...fields } = reply.zone;
        return storedZoneFromJson(fields, bodyJson, (text) => parseJsonColumn(text, 'zones.body'));
      }
    }
    const row = this.statement('SELECT * FROM zones WHERE client_id = ? AND name = ?').get(clientId, name) as ZoneRow | undefined;
    return row && zoneFromRow(row);
  }

  /**
   * A zone with its body as UTF-8 bytes on a SharedArrayBuffer (for the writer thread, whose
   * reply shares them): the text is never made a string.
   */
  zoneBytes(clientId: string, name: string): ZoneWriteFields | undefined {
    const row = this.statement('SELECT client_id, name, revision, created_at, updated_at, vertex_count, CAST(body AS BLOB) AS body FROM zones WHERE client_id = ? AND name = ?')
      .get(clientId, name) as (Omit<ZoneRow, 'body'> & { body: Uint8Array; vertex_count: number | bigint }) | undefined;
    if (!row) return undefined;
    const bodyJson = new Uint8Array(new SharedArrayBuffer(row.body.length));
    bodyJson.set(row.body);
    return { clientId: row.client_id, name: row.name, revision: row.revision, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), vertexCount: Number(row.vertex_count), bodyJson };
  }

  async getZones(clientId: string, names: string[]): Promise<StoredZone[]> {
    if (names.length === 0) return [];
    for (const n of names) storableText(n, 'name');
    // Each name looked up (CROSS JOIN keeps that order), not each of the client's zones scanned.
    const rows = this.statement('SELECT z.* FROM json_each(?) n CROSS JOIN zones z ON z.client_id = ? AND z.name = n.value')
      .all(JSON.stringify(names), storableText(clientId, 'client_id')) as ZoneRow[];
    return rows.map(zoneFromRow);
  }

  async zoneRevisions(clientId: string, names: string[]): Promise<Array<{ name: string; revision: string }>> {
    if (names.length === 0) return [];
    for (const n of names) storableText(n, 'name');
    // Each name looked up (CROSS JOIN keeps that order) in the index alone (see largeOnThread).
    return this.statement('SELECT z.name, z.revision FROM json_each(?) n CROSS JOIN zones z INDEXED BY zones_without_body ON z.client_id = ? AND z.name = n.value')
      .all(JSON.stringify(names), storableText(clientId, 'client_id')) as Array<{ name: string; revision: string }>;
  }

  async allZones(): Promise<StoredZone[]> {
    return (this.statement('SELECT * FROM zones ORDER BY client_id, created_at, name').all() as ZoneRow[]).map(zoneFromRow);
  }

  private exists(clientId: string, name: string): boolean {
    return this.statement('SELECT 1 FROM zones WHERE client_id = ? AND name = ?').get(clientId, name) !== undefined;
  }

  /** Throws ZoneQuotaExceeded when the write would break the quota. */
  private checkQuota(quota: ZoneQuota, clientId: string, except: string | null, vertices: number): void {
    const usage = this.usage(clientId, except);
    const limit = brokenQuotaLimit(quota, usage, except === null, vertices);
    if (limit) throw new ZoneQuotaExceeded(limit, quota, usage, vertices);
  }

  async insertZone(z: StoredZone, quota?: ZoneQuota): Promise<boolean> {
    storableText(z.clientId, 'client_id');
    storableText(z.name, 'name');
    const onThread = await this.writeOnThread('insertZone', z, quota);
    if (onThread !== undefined) return onThread;
    const vertices = storedVertexCount(z);
    // IMMEDIATE takes the write lock first, so check and insert are atomic across processes too.
    return this.writing(() => this.db.immediate(() => {
      if (quota) {
        if (this.exists(z.clientId, z.name)) return false;
        this.checkQuota(quota, z.clientId, null, vertices);
      }
      const result = this.statement(`INSERT INTO zones ${ZONE_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_id, name) DO NOTHING`)
        .run(z.clientId, z.name, zoneBodyJson(z), z.revision, z.createdAt, z.updatedAt, vertices);
      return result.changes === 1;
    }));
  }

  async replaceZone(z: StoredZone, quota?: ZoneQuota): Promise<boolean> {
    storableText(z.clientId, 'client_id');
    storableText(z.name, 'name');
    const onThread = await this.writeOnThread('replaceZone', z, quota);
    if (onThread !== undefined) return onThread;
    const vertices = storedVertexCount(z);
    return this.writing(() => this.db.immediate(() => {
      if (quota) {
        if (!this.exists(z.clientId, z.name)) return false;
        this.checkQuota(quota, z.clientId, z.name, vertices);
      }
      const result = this.statement('UPDATE zones SET body = ?, revision = ?, updated_at = ?, vertex_count = ? WHERE client_id = ? AND name = ?')
        .run(zoneBodyJson(z), z.revision, z.updatedAt, vertices, z.clientId, z.name);
      return result.changes === 1;
    }));
  }

  async deleteZone(clientId: string, name: string): Promise<boolean> {
    storableText(clientId, 'client_id');
    storableText(name, 'name');
    if (this.largeOnThread(clientId, name)) {
      const reply = await this.onThread({ op: 'deleteZone', clientId, name });
      if (reply !== undefined && 'written' in reply) return reply.written;
    }
    return this.writing(() => this.statement('DELETE FROM zones WHERE client_id = ? AND name = ?').run(clientId, name).changes === 1);
  }

  async insertJob(job: Job): Promise<void> {
    return this.insertJobs([job]);
  }

  async insertJobs(jobs: readonly Job[]): Promise<void> {
    const insert = () => this.db.immediate(() => {
      const row = this.statement('INSERT INTO jobs (id, client_id, kind, status, request, solution, attempts, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)');
      for (const job of jobs) {
        row.run(job.id, job.clientId, job.kind, job.status, JSON.stringify(job.request), job.solutionJson ?? null, job.createdAt, job.updatedAt, job.expiresAt);
        if (job.status !== 'SOLVED') this.addJobEvent(job.id, job.status, job.createdAt);
      }
    });
    if (!jobs.every((job) => job.status === 'SOLVED')) return this.writing(insert);
    // Solutions stored as answered: WAL writes reach the OS before the commit returns, so they
    // survive a killed process without the sync to disk.
    return this.writing(() => {
      this.statement('PRAGMA synchronous = NORMAL').run();
      try {
        insert();
      } finally {
        this.statement('PRAGMA synchronous = FULL').run();
      }
    });
  }

  async openJobs(clientId: string, kind: JobKind): Promise<number> {
    const row = this.statement("SELECT count(*) AS n FROM jobs WHERE client_id = ? AND kind = ? AND status IN ('ENQUEUED', 'PROCESSING')").get(clientId, kind) as { n: number };
    return Number(row.n);
  }

  async getJob(clientId: string, kind: JobKind, id: string, now: number, withSolution = false): Promise<Job | undefined> {
    const row = this.statement(`SELECT ${withSolution ? '*' : JOB_STATUS_COLUMNS} FROM jobs WHERE id = ? AND client_id = ? AND kind = ? AND expires_at > ?`)
      .get(id, clientId, kind, now) as JobRow | undefined;
    return row && jobFromRow(row);
  }

  async jobEvents(clientId: string, kind: JobKind, id: string, now: number): Promise<JobEvent[]> {
    const rows = this.statement(`SELECT e.* FROM job_events e JOIN jobs j ON j.id = e.job_id
      WHERE j.id = ? AND j.client_id = ? AND j.kind = ? AND j.expires_at > ? ORDER BY e.seq`).all(id, clientId, kind, now) as JobEventRow[];
    return jobEventsOf(rows, rows.length > 0 ? undefined : await this.getJob(clientId, kind, id, now));
  }

  async claimJob(now: number, leaseMillis: number, maxAttempts: number, taker?: string): Promise<Job | undefined> {
    // IMMEDIATE: the write lock first, so two processes on one file never take the same job.
    return this.writing(() => this.db.immediate(() => {
      for (;;) {
        const row = this.statement(`SELECT * FROM jobs WHERE (status = 'ENQUEUED' OR (status = 'PROCESSING' AND lease_until < ?))
          AND expires_at > ? ORDER BY created_at LIMIT 1`).get(now, now) as JobRow | undefined;
        if (!row) return undefined;
        if (Number(row.attempts) >= maxAttempts) {
          const failure = `given up after ${row.attempts} attempts: the instances that took it up stopped before finishing`;
          this.statement("UPDATE jobs SET status = 'FAILED', failure = ?, lease_until = NULL, updated_at = ? WHERE id = ?").run(failure, now, row.id);
          this.addJobEvent(row.id, 'FAILED', now, failure);
          continue;
        }
        this.statement("UPDATE jobs SET status = 'PROCESSING', attempts = attempts + 1, lease_until = ?, taker = ?, updated_at = ? WHERE id = ?").run(now + leaseMillis, taker ?? null, now, row.id);
        this.addJobEvent(row.id, 'PROCESSING', now);
        return jobFromRow({ ...row, status: 'PROCESSING', attempts: Number(row.attempts) + 1, updated_at: now });
      }
    }));
  }

  async releaseJobsOf(taker: string, now: number): Promise<number> {
    return this.writing(() => this.statement("UPDATE jobs SET lease_until = ? WHERE status = 'PROCESSING' AND taker = ? AND lease_until >= ?").run(now - 1, taker, now).changes);
  }

  async renewJobLease(id: string, now: number, leaseMillis: number): Promise<boolean> {
    return this.writing(() => this.statement("UPDATE jobs SET lease_until = ? WHERE id = ? AND status = 'PROCESSING'").run(now + leaseMillis, id).changes === 1);
  }

  async finishJob(id: string, outcome: { solutionJson: string } | { failure: string }, now: number): Promise<boolean> {
    return this.writing(() => this.db.immediate(() => {
      const status = 'solutionJson' in outcome ? 'SOLVED' : 'FAILED';
      const changed = this.statement("UPDATE jobs SET status = ?, solution = ?, failure = ?, lease_until = NULL, updated_at = ? WHERE id = ? AND status = 'PROCESSING'")
        .run(status, 'solutionJson' in outcome ? outcome.solutionJson : null, 'failure' in outcome ? outcome.failure : null, now, id).changes === 1;
      if (changed) this.addJobEvent(id, status, now, 'failure' in outcome ? outcome.failure : undefined);
      return changed;
    }));
  }

  async deleteExpiredJobs(now: number): Promise<number> {
    return this.writing(() => this.statement('DELETE FROM jobs WHERE expires_at <= ?').run(now).changes);
  }

  private addJobEvent(jobId: string, status: JobStatus, at: number, detail?: string): void {
    this.statement('INSERT INTO job_events SELECT ?, coalesce(max(seq), 0) + 1, ?, ?, ? FROM job_events WHERE job_id = ?').run(jobId, status, at, detail ?? null, jobId);
  }
}
