import pg from 'pg';
import { MIGRATIONS } from './schemaSql.js';
import { clientFromRow, tokenFromRow, TOKEN_QUERY, zoneFromRow, type TokenRow } from './rows.js';
import type { ClientRecord, Store, StoredZone, TokenLookup, TokenRecord } from './Store.js';

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
            await client.query(MIGRATIONS[i]);
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
      c.clientId,
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
    const { rows } = await this.pool.query('SELECT * FROM clients WHERE client_id = $1', [clientId]);
    return rows[0] && clientFromRow(rows[0]);
  }

  async listClients(): Promise<ClientRecord[]> {
    const { rows } = await this.pool.query('SELECT * FROM clients ORDER BY created_at, client_id');
    return rows.map(clientFromRow);
  }

  async revokeClient(clientId: string, at: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE clients SET revoked_at = $1 WHERE client_id = $2 AND revoked_at IS NULL', [at, clientId]);
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

  async listZones(clientId: string): Promise<StoredZone[]> {
    const { rows } = await this.pool.query('SELECT * FROM zones WHERE client_id = $1 ORDER BY created_at, name', [clientId]);
    return rows.map(zoneFromRow);
  }

  async getZone(clientId: string, name: string): Promise<StoredZone | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM zones WHERE client_id = $1 AND name = $2', [clientId, name]);
    return rows[0] && zoneFromRow(rows[0]);
  }

  async getZones(clientId: string, names: string[]): Promise<StoredZone[]> {
    if (names.length === 0) return [];
    const { rows } = await this.pool.query('SELECT * FROM zones WHERE client_id = $1 AND name = ANY($2::text[])', [clientId, names]);
    return rows.map(zoneFromRow);
  }

  async allZones(): Promise<StoredZone[]> {
    const { rows } = await this.pool.query('SELECT * FROM zones ORDER BY client_id, created_at, name');
    return rows.map(zoneFromRow);
  }

  async insertZone(z: StoredZone): Promise<boolean> {
    const r = await this.pool.query('INSERT INTO zones VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (client_id, name) DO NOTHING', [
      z.clientId,
      z.name,
      JSON.stringify(z.body),
      z.revision,
      z.createdAt,
      z.updatedAt,
    ]);
    return r.rowCount === 1;
  }

  async replaceZone(z: StoredZone): Promise<boolean> {
    const r = await this.pool.query('UPDATE zones SET body = $1, revision = $2, updated_at = $3 WHERE client_id = $4 AND name = $5', [
      JSON.stringify(z.body),
      z.revision,
      z.updatedAt,
      z.clientId,
      z.name,
    ]);
    return r.rowCount === 1;
  }

  async deleteZone(clientId: string, name: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM zones WHERE client_id = $1 AND name = $2', [clientId, name])).rowCount === 1;
  }
}
