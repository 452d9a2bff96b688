import { join } from 'node:path';
import { PostgresStore } from './PostgresStore.js';
import { SqliteStore } from './SqliteStore.js';
import type { Store } from './Store.js';

export interface StoreConfig {
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of SQLite. */
  databaseUrl?: string;
  /** Folder of the SQLite file (detour.sqlite). */
  dataDir: string;
}

/** PostgreSQL when a database URL is given, else SQLite in the data folder. */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl) return PostgresStore.open({ connectionString: config.databaseUrl });
  return new SqliteStore(join(config.dataDir, 'detour.sqlite'));
}
