/** A migration in SQL both databases accept, or one text per database. */
export type Migration = string | { sqlite: string; postgres: string };

/** The SQL of a migration for one database. */
export const migrationSql = (m: Migration, kind: 'sqlite' | 'postgres'): string => (typeof m === 'string' ? m : m[kind]);

/**
 * The tables. Each entry is one migration; a database records how many it has applied (SQLite:
 * user_version; PostgreSQL: detour_migrations).
 */
export const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE clients (
     client_id TEXT PRIMARY KEY,
     application_name TEXT NOT NULL,
     organization_name TEXT NOT NULL,
     developer_email TEXT NOT NULL,
     products TEXT NOT NULL,
     secret_hash TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     revoked_at BIGINT
   );
   CREATE TABLE tokens (
     token_hash TEXT PRIMARY KEY,
     client_id TEXT NOT NULL REFERENCES clients (client_id),
     products TEXT NOT NULL,
     issued_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX tokens_expires_at ON tokens (expires_at);
   CREATE TABLE zones (
     client_id TEXT NOT NULL REFERENCES clients (client_id),
     name TEXT NOT NULL,
     body TEXT NOT NULL,
     revision TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (client_id, name)
   );`,
  // 2: vertices per zone (per-client quotas sum them without parsing bodies) and the listing order
  // as an index, so a page costs its rows, not the client's zones.
  {
    sqlite: `ALTER TABLE zones ADD COLUMN vertex_count BIGINT NOT NULL DEFAULT 0;
     UPDATE zones SET vertex_count = (SELECT coalesce(sum(json_array_length(g.value, '$.vertices')), 0) FROM json_each(zones.body, '$.geometries') g);
     CREATE INDEX zones_client_order ON zones (client_id, created_at, name);`,
    postgres: `ALTER TABLE zones ADD COLUMN vertex_count BIGINT NOT NULL DEFAULT 0;
     UPDATE zones SET vertex_count = (SELECT coalesce(sum(json_array_length(g -> 'vertices')), 0) FROM json_array_elements(body::json -> 'geometries') g);
     CREATE INDEX zones_client_order ON zones (client_id, created_at, name);`,
  },
];
