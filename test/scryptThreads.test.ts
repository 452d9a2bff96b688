import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { ScryptThreads, scryptOverPort, serveScrypt } from '../src/service/scryptThreads.js';
import { hashSecret, verifySecret } from '../src/service/credentials.js';

const OPTIONS = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Nice values of this process's threads, from /proc (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('scrypt on the low-priority threads gives the keys node:crypto gives, and lowers only its own threads', async () => {
  const base = getPriority(); // this thread's nice value (the runner may itself run niced)
  const threads = new ScryptThreads(2);
  try {
    const jobs = Array.from({ length: 5 }, (_, i) => ({ secret: `secret-${i}`, salt: randomBytes(16) }));
    const keys = await Promise.all(jobs.map((j) => threads.derive(j.secret, j.salt, 32, OPTIONS)));
    jobs.forEach((j, i) => assert.deepEqual(keys[i], scryptSync(j.secret, j.salt, 32, OPTIONS)));
    // A hash made on libuv's pool verifies on the threads; a wrong secret does not.
    const hash = await hashSecret('right');
    assert.equal(await verifySecret('right', hash, threads.derive), true);
    assert.equal(await verifySecret('wrong', hash, threads.derive), false);
    if (process.platform === 'linux' && base < 10) {
      const nices = threadNices();
      assert.equal(nices.filter((n) => n === 10).length, 2, `two threads at nice 10, got ${nices.join(' ')}`);
      // The main thread (the event loop) keeps its priority.
      assert.equal(getPriority(), base);
    }
    // Bad options are an error of that derivation, not a dead thread.
    await assert.rejects(threads.derive('x', randomBytes(16), 32, { N: 3 }), /N|cost|Invalid/i);
    assert.deepEqual(await threads.derive('again', jobs[0].salt, 32, OPTIONS), scryptSync('again', jobs[0].salt, 32, OPTIONS));
  } finally {
    await threads.close();
  }
});

test('a service thread\'s scrypt over a port runs on the process\'s threads: the same keys, errors passed back', async () => {
  const threads = new ScryptThreads(1);
  const channels = [new MessageChannel(), new MessageChannel()];
  try {
    for (const c of channels) serveScrypt(c.port1, threads.derive);
    const derives = channels.map((c) => scryptOverPort(c.port2));
    const jobs = Array.from({ length: 4 }, (_, i) => ({ secret: `secret-${i}`, salt: randomBytes(16) }));
    const keys = await Promise.all(jobs.map((j, i) => derives[i % 2](j.secret, j.salt, 32, OPTIONS)));
    jobs.forEach((j, i) => assert.deepEqual(keys[i], scryptSync(j.secret, j.salt, 32, OPTIONS)));
    await assert.rejects(derives[0]('x', randomBytes(16), 32, { ...OPTIONS, N: 3 }), /N|invalid|Invalid/);
  } finally {
    for (const c of channels) c.port1.close();
    await threads.close();
  }
});
