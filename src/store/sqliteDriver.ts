import { createRequire } from 'node:module';
import { DetourError } from '../errors.js';

/** The slice of a synchronous SQLite binding the store uses. */
export interface SqlStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqlDatabase {
  /** Which binding: better-sqlite3 or node:sqlite. */
  readonly driver: SqliteDriverName;
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  /** Runs `PRAGMA <text>`; returns the first column of its first row (undefined when none). */
  pragma(text: string): unknown;
  /** Runs `work` inside BEGIN IMMEDIATE ... COMMIT (ROLLBACK when it throws). */
  immediate<T>(work: () => T): T;
  readonly open: boolean;
  close(): void;
}

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

/**
 * The binding for this Node: node:sqlite from Node 24 (built in; better-sqlite3 12 aborts there
 * when a statement is finalised, and 13 needs Node 22+), better-sqlite3 before (node:sqlite is
 * still experimental on 22 and absent on 20). DETOUR_SQLITE_DRIVER overrides it.
 */
export function defaultSqliteDriver(env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const chosen = env.DETOUR_SQLITE_DRIVER;
  if (chosen === 'better-sqlite3' || chosen === 'node:sqlite') return chosen;
  if (chosen) throw new DetourError('INVALID_INPUT', `DETOUR_SQLITE_DRIVER must be better-sqlite3 or node:sqlite, got ${JSON.stringify(chosen)}`);
  return Number(process.versions.node.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';
}

/** Opens an SQLite database file (or ':memory:') with the given binding. */
export function openSqlite(location: string, driver: SqliteDriverName = defaultSqliteDriver()): SqlDatabase {
  return driver === 'node:sqlite' ? openNodeSqlite(location) : openBetterSqlite(location);
}

interface BetterSqlite3Database {
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  pragma(text: string, options: { simple: true }): unknown;
  transaction<T>(work: () => T): { immediate(): T };
  readonly open: boolean;
  close(): void;
}

function openBetterSqlite(location: string): SqlDatabase {
  // Loaded on demand: an optional peer dependency, not needed where node:sqlite serves.
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => BetterSqlite3Database;
  const db = new Database(location);
  return {
    driver: 'better-sqlite3',
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => db.exec(sql),
    pragma: (text) => db.pragma(text, { simple: true }),
    immediate: (work) => db.transaction(work).immediate(),
    get open() { return db.open; },
    close: () => db.close(),
  };
}

interface NodeSqliteDatabase {
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  readonly isOpen: boolean;
  close(): void;
}

function openNodeSqlite(location: string): SqlDatabase {
  const sqlite = process.getBuiltinModule?.('node:sqlite') as { DatabaseSync: new (path: string) => NodeSqliteDatabase } | undefined;
  if (!sqlite) throw new DetourError('SERVICE_DEPENDENCIES_MISSING', `node:sqlite is not available in Node ${process.version}; use DETOUR_SQLITE_DRIVER=better-sqlite3`);
  const db = new sqlite.DatabaseSync(location);
  return {
    driver: 'node:sqlite',
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => db.exec(sql),
    pragma: (text) => {
      const row = db.prepare(`PRAGMA ${text}`).get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
    immediate: (work) => {
      db.exec('BEGIN IMMEDIATE');
      let result;
      try {
        result = work();
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
      db.exec('COMMIT');
      return result;
    },
    get open() { return db.isOpen; },
    close: () => db.close(),
  };
}
