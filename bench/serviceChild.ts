/**
 * A detour service alone in a process, for benchmarks that time it from outside (the load and the
 * timing clients stay in the parent). Forked with IPC: sends {url, clientId, clientSecret} once
 * listening; on 'loop-reset' starts a new event-loop delay window and on 'loop-max' answers
 * {loopMax} (the longest its event loop was held in that window, ms); on 'elu' answers {elu} (its event
 * loop's utilization so far: performance.eventLoopUtilization()); exits on 'exit'.
 * Usage: fork('bench/serviceChild.ts', [dataDir], { execArgv: ['--import', 'tsx'] }).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { configFromEnv, registerClient, startService } from '../src/service/index.js';

const dataDir = process.argv[2];
if (!dataDir || !process.send) throw new Error('fork me with a data directory and IPC');
// DETOUR_GRAPH: the graph to serve (default the bundled city).
const service = await startService({ ...configFromEnv({ DETOUR_GRAPH: process.env.DETOUR_GRAPH }), port: 0, dataDir, logLevel: 'silent', workers: 1, demoClient: false });
const { client, clientSecret } = await registerClient(service.store, { applicationName: 'bench' });
// 1 ms resolution: a delay is the time a timer waited past its turn, i.e. a task held the loop.
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
process.on('message', async (m) => {
  if (m === 'loop-reset') loop.reset();
  else if (m === 'loop-max') process.send!({ loopMax: loop.max / 1e6 });
  else if (m === 'elu') process.send!({ elu: performance.eventLoopUtilization() });
  else if (m === 'exit') {
    await service.close();
    process.exit(0);
  }
});
process.send({ url: service.url, clientId: client.clientId, clientSecret });
