/**
 * The tables, in SQL both SQLite and PostgreSQL accept. Each entry is one migration; a database
 * records how many it has applied (SQLite: user_version; PostgreSQL: detour_migrations).
 */
export const MIGRATIONS: readonly string[] = [
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
];
