/** A zone's key as a code migration reads it. */
export interface ZoneName {
  client_id: string;
  name: string;
}

/** A zone to rename (its row and the name inside its body). */
export interface ZoneRename {
  clientId: string;
  from: string;
  to: string;
}

/**
 * A migration: SQL both databases accept, one text per database, or a step in code that returns
 * the zones to rename given every zone's key.
 */
export type Migration = string | { sqlite: string; postgres: string } | { renameZones: (zones: ZoneName[]) => ZoneRename[] };

/** The SQL of a migration for one database; undefined for a step in code. */
export const migrationSql = (m: Migration, kind: 'sqlite' | 'postgres'): string | undefined => (typeof m === 'string' ? m : 'renameZones' in m ? undefined : m[kind]);

/**
 * Zone names stored before names were normalised, renamed to their NFC form (the form paths and
 * trips now look up). A name whose NFC twin is already stored keeps its spelling: merging two
 * zones is the client's call; it stays listed, and readable by path once the twin is deleted.
 */
export function nfcRenames(zones: ZoneName[]): ZoneRename[] {
  const taken = new Set(zones.map((z) => `${z.client_id}\n${z.name}`));
  const renames: ZoneRename[] = [];
  for (const z of zones) {
    const to = z.name.normalize('NFC');
    const key = `${z.client_id}\n${to}`;
    if (to === z.name || taken.has(key)) continue;
    taken.add(key);
    renames.push({ clientId: z.client_id, from: z.name, to });
  }
  return renames;
}

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
  // 3: names normalised to NFC (see nfcRenames).
  { renameZones: nfcRenames },
  // 4: asynchronous matrices; the partial index finds the jobs to take up without a scan.
  `CREATE TABLE matrix_jobs (
     id TEXT PRIMARY KEY,
     client_id TEXT NOT NULL REFERENCES clients (client_id),
     status TEXT NOT NULL,
     request TEXT NOT NULL,
     solution TEXT,
     failure TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     lease_until BIGINT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   CREATE INDEX matrix_jobs_open ON matrix_jobs (created_at) WHERE status IN ('ENQUEUED', 'PROCESSING');
   CREATE INDEX matrix_jobs_expires ON matrix_jobs (expires_at);
   CREATE TABLE matrix_job_events (
     job_id TEXT NOT NULL REFERENCES matrix_jobs (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     status TEXT NOT NULL,
     at BIGINT NOT NULL,
     detail TEXT,
     PRIMARY KEY (job_id, seq)
   );`,
  // 5: jobs of every asynchronous API (and synchronous trips kept for reading back), by kind.
  `ALTER TABLE matrix_jobs RENAME TO jobs;
   ALTER TABLE matrix_job_events RENAME TO job_events;
   ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'matrix';
   DROP INDEX matrix_jobs_open;
   DROP INDEX matrix_jobs_expires;
   CREATE INDEX jobs_open ON jobs (created_at) WHERE status IN ('ENQUEUED', 'PROCESSING');
   CREATE INDEX jobs_expires ON jobs (expires_at);
   CREATE INDEX jobs_client_open ON jobs (client_id, kind) WHERE status IN ('ENQUEUED', 'PROCESSING');`,
  // 6: a zone's revision and size read from an index: SQLite keeps a row's columns in order, these
  // after the body, so reading them from the row walks a large body's overflow pages (1,400 for 6 MB).
  'CREATE INDEX zones_without_body ON zones (client_id, name, revision, vertex_count);',
  // 7: who took a job up, so an instance started again takes its own back at once (releaseJobsOf).
  'ALTER TABLE jobs ADD COLUMN taker TEXT;',
];
