/**
 * The two SQLite bindings behind SqliteStore (better-sqlite3 before Node 24, node:sqlite from 24):
 * whatever one writes the other reads, and a failed transaction leaves nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../src/store/SqliteStore.js';
import { defaultSqliteDriver, openSqlite, type SqliteDriverName } from '../src/store/sqliteDriver.js';

const major = Number(process.versions.node.split('.')[0]);
const available: SqliteDriverName[] = [
  // better-sqlite3 12 aborts on Node 24 when a statement is finalised (the reason for node:sqlite there).
  ...(major < 24 ? ['better-sqlite3' as const] : []),
  ...(process.getBuiltinModule?.('node:sqlite') ? ['node:sqlite' as const] : []),
];

test('the default binding follows the Node version and DETOUR_SQLITE_DRIVER', () => {
  assert.equal(defaultSqliteDriver({}), major >= 24 ? 'node:sqlite' : 'better-sqlite3');
  assert.equal(defaultSqliteDriver({ DETOUR_SQLITE_DRIVER: 'node:sqlite' }), 'node:sqlite');
  assert.throws(() => defaultSqliteDriver({ DETOUR_SQLITE_DRIVER: 'mysql' }), /better-sqlite3 or node:sqlite/);
});

for (const writer of available) {
  for (const reader of available) {
    test(`a store written with ${writer} reads back with ${reader}; a failed transaction rolls back`, async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'detour-driver-')), 'store.sqlite');
      const a = new SqliteStore(path, writer);
      await a.addClient({
        clientId: 'c1', applicationName: 'app', organizationName: 'org', developerEmail: 'e@x', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null,
      });
      const body = { name: 'Z', geometries: [{ vertices: [{ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 1 }, { latitude: 1, longitude: 1 }] }] };
      assert.equal(await a.insertZone({ clientId: 'c1', name: 'Z', body, revision: 'r1', createdAt: 2, updatedAt: 2 }), true);
      assert.equal(await a.insertZone({ clientId: 'c1', name: 'Z', body, revision: 'r2', createdAt: 3, updatedAt: 3 }), false);
      await a.close();
      const b = new SqliteStore(path, reader);
      assert.equal((await b.getClient('c1'))?.applicationName, 'app');
      const zone = await b.getZone('c1', 'Z');
      assert.equal(zone?.revision, 'r1');
      assert.deepEqual(zone?.body, body);
      assert.equal(await b.deleteZone('c1', 'Z'), true);
      await b.close();
      const raw = openSqlite(path, reader);
      assert.throws(() => raw.immediate(() => {
        raw.prepare("INSERT INTO clients VALUES ('c2', 'a', 'o', 'e', '[]', 'h', 1, NULL)").run();
        throw new Error('abort');
      }), /abort/);
      assert.equal(Number((raw.prepare("SELECT count(*) AS n FROM clients WHERE client_id = 'c2'").get() as { n: number }).n), 0);
      raw.close();
    });
  }
}

for (const driver of available) {
  test(`${driver}: once the log is large, commits reach the database file by checkpoints on the writer thread, not inside the event loop's commits`, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'detour-checkpoint-')), 'store.sqlite');
    const store = new SqliteStore(path, driver, { checkpointMillis: 20 });
    const inner = store as unknown as { db: { pragma(text: string): unknown }; zoneWriter?: unknown };
    try {
      // SQLite's own checkpoints (inside a commit that fills the log) while the log is small.
      assert.equal(Number(inner.db.pragma('wal_autocheckpoint')), 1000);
      await store.addClient({ clientId: 'c1', applicationName: 'app', organizationName: 'org', developerEmail: 'e@x', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null });
      const solution = JSON.stringify({ legs: 'x'.repeat(2_000_000) });
      await store.insertJobs([{ id: 'j1', clientId: 'c1', kind: 'trip', status: 'SOLVED', request: {}, solutionJson: solution, attempts: 0, createdAt: 1, updatedAt: 1, expiresAt: Date.now() + 60_000 }]);
      // The commit wrote the log; the file itself takes the 2 MB when the checkpoint copies them.
      const before = statSync(path).size;
      assert.ok(before < 1_000_000, `${before} bytes in the database file right after the commit`);
      const started = Date.now();
      while (statSync(path).size < 2_000_000) {
        assert.ok(Date.now() - started < 20_000, 'no checkpoint within 20 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(inner.zoneWriter, 'the writer thread checkpointed');
      assert.equal(Number(inner.db.pragma('wal_autocheckpoint')), 0, 'a log past WAL_ON_THREAD_BYTES: this connection checkpoints no more');
      assert.equal((await store.getJob('c1', 'trip', 'j1', Date.now(), true))?.solutionJson, solution);
    } finally {
      await store.close();
    }
    // Where no writer thread can be had, this connection checkpoints.
    const threadless = join(mkdtempSync(join(tmpdir(), 'detour-checkpoint-')), 'store.sqlite');
    const alone = new SqliteStore(threadless, driver, { checkpointMillis: 20 });
    (alone as unknown as { writerThread: () => undefined }).writerThread = () => undefined;
    try {
      await alone.addClient({ clientId: 'c1', applicationName: 'app', organizationName: 'org', developerEmail: 'e@x', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null });
      await alone.insertJobs([{ id: 'j1', clientId: 'c1', kind: 'trip', status: 'SOLVED', request: {}, solutionJson: JSON.stringify({ legs: 'y'.repeat(2_000_000) }), attempts: 0, createdAt: 1, updatedAt: 1, expiresAt: Date.now() + 60_000 }]);
      const started = Date.now();
      while (statSync(threadless).size < 2_000_000) {
        assert.ok(Date.now() - started < 20_000, 'no checkpoint on the connection within 20 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal((alone as unknown as typeof inner).zoneWriter, undefined);
    } finally {
      await alone.close();
    }
    // A store that writes little never starts the thread.
    const small = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'detour-checkpoint-')), 'store.sqlite'), driver, { checkpointMillis: 5 });
    await small.addClient({ clientId: 'c1', applicationName: 'app', organizationName: 'org', developerEmail: 'e@x', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((small as unknown as typeof inner).zoneWriter, undefined);
    await small.close();
  });
}

for (const driver of available) {
  test(`${driver}: a write that finds another connection holding the write lock waits on a timer, not in SQLite's busy handler on the event loop`, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'detour-busy-')), 'store.sqlite');
    const store = new SqliteStore(path, driver, { zoneWriter: false });
    const other = openSqlite(path, driver);
    try {
      await store.addClient({ clientId: 'c1', applicationName: 'app', organizationName: 'org', developerEmail: 'e@x', products: ['Trip'], secretHash: 'h', createdAt: 1, revokedAt: null });
      other.exec('BEGIN IMMEDIATE'); // another process's write, under way
      // Released by a timer: it can only run if the token's write leaves the event loop free
      // (in the busy handler, the write would wait out its 5 s timeout and fail).
      let released = false;
      setTimeout(() => {
        other.exec('COMMIT');
        released = true;
      }, 100);
      await store.saveToken({ tokenHash: 'h1', clientId: 'c1', products: ['Trip'], issuedAt: 1, expiresAt: Date.now() + 60_000 });
      assert.ok(released, 'written once the other connection let the lock go');
      assert.equal((await store.findToken('h1'))?.clientId, 'c1');
      // Reads keep the busy timeout; the writes' retries set it back after each try.
      assert.equal(Number((store as unknown as { db: { pragma(text: string): unknown } }).db.pragma('busy_timeout')), 5000);
    } finally {
      other.close();
      await store.close();
    }
  });
}
