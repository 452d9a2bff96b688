/**
 * A detour service alone in a process, for benchmarks that time it from outside (the load and the
 * timing clients stay in the parent). Forked with IPC: sends {url, clientId, clientSecret} once
 * listening; on 'loop-reset' starts a new event-loop delay window and on 'loop-max' answers
 * {loopMax} (the longest its event loop was held in that window, ms); on 'elu' answers {elu} (its event
 * loop's utilization so far: performance.eventLoopUtilization()); on {bare: bytes} starts a bare
 * node:http server beside the service (it reads each request's body and answers `bytes` bytes of
 * JSON, nothing else: what Node's HTTP costs a trip on both ends) and answers {bareUrl}; exits on 'exit'.
 * LOG_LEVEL: the service's log level (default silent), its log written to the child's stdout.
 * Usage: fork('bench/serviceChild.ts', [dataDir], { execArgv: ['--import', 'tsx'] }).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { configFromEnv, registerClient, startService } from '../src/service/index.js';

const dataDir = process.argv[2];
if (!dataDir || !process.send) throw new Error('fork me with a data directory and IPC');
// DETOUR_GRAPH: the graph to serve (default the bundled city).
const service = await startService({ ...configFromEnv({ DETOUR_GRAPH: process.env.DETOUR_GRAPH }), port: 0, dataDir, logLevel: process.env.LOG_LEVEL || 'silent', workers: 1, demoClient: false });
const { client, clientSecret } = await registerClient(service.store, { applicationName: 'bench' });
// 1 ms resolution: a delay is the time a timer waited past its turn, i.e. a task held the loop.
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
let bare: http.Server | undefined;
process.on('message', async (m) => {
  if (typeof m === 'object' && m !== null && 'bare' in m) {
    const answer = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, (m as { bare: number }).bare - 10)) }));
    bare = http.createServer((req, res) => {
      req.on('data', () => {});
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer));
    });
    bare.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => bare!.listen(0, '127.0.0.1', resolve));
    process.send!({ bareUrl: `http://127.0.0.1:${(bare.address() as AddressInfo).port}` });
  } else if (m === 'loop-reset') loop.reset();
  else if (m === 'loop-max') process.send!({ loopMax: loop.max / 1e6 });
  else if (m === 'elu') process.send!({ elu: performance.eventLoopUtilization() });
  else if (m === 'exit') {
    bare?.close();
    await service.close();
    process.exit(0);
  }
});
process.send({ url: service.url, clientId: client.clientId, clientSecret });
