import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateZone, DEFAULT_GRAPH_PATH, loadGraph, Router, validateZone } from '../src/index.js';
import { authorise, http, listen, newClient, sqliteKind, TRIP_PATH, ZONES_PATH } from './support/service.js';

const graph = loadGraph(DEFAULT_GRAPH_PATH);

const block = (name: string, south: number, west: number, north: number, east: number) => ({
  name,
  geometries: [{ name: 'block', vertices: [[south, west], [south, east], [north, east], [north, west]].map(([latitude, longitude]) => ({ latitude, longitude })) }],
});
const centrum = block('Centrum', 57.7, 11.96, 57.71, 11.975);
const hisingen = block('Hisingen', 57.72, 11.93, 57.73, 11.95);
const west = { latitude: 57.7055, longitude: 11.95 }, east = { latitude: 57.7055, longitude: 11.985 };
const north = { latitude: 57.735, longitude: 11.94 };

test('the service customizes a zone\'s routing cells once it is calculated, between requests: its first trip crosses them by their cliques, customizes nothing and routes as an unprepared router does', async () => {
  const kind = sqliteKind();
  const store = await kind.open();
  const svc = await listen(graph, store);
  try {
    const auth = await authorise(svc.url, await newClient(store));
    const created = await http(`${svc.url}${ZONES_PATH}`, { json: centrum, headers: auth.headers });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.status.name, 'CALCULATED');
    // /health tells when the queue is done; nothing else runs meanwhile.
    let health = await http(`${svc.url}/health`);
    for (let i = 0; i < 200 && !(health.body.zonesPrepared >= 1 && health.body.zonesToPrepare === 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      health = await http(`${svc.url}/health`);
    }
    assert.deepEqual([health.body.zonesPrepared, health.body.zonesToPrepare], [1, 0], JSON.stringify(health.body));

    // Every customization the router's engine does from here on is counted, and every search's customized cells seen.
    const search = svc.app.router.search;
    const customize = search.customize!.bind(search), find = search.find.bind(search);
    let customized = 0, crossedByCliques = 0;
    search.customize = (...args) => { customized++; return customize(...args); };
    search.find = (query) => { crossedByCliques += query.blockedCellCliques?.filter((c) => c !== undefined).length ?? 0; return find(query); };

    const trip = (points: object[], restrictionZones: string[]) => http(`${svc.url}${TRIP_PATH}`, { json: { points, restrictionZones }, headers: auth.headers });
    const around = await trip([west, east], ['Centrum']);
    assert.equal(around.status, 201, around.text);
    assert.equal(customized, 0, 'the trip customized nothing');
    assert.ok(crossedByCliques > 0, 'the trip found the zone\'s cells customized');
    const unprepared = new Router(graph, { zoneCliqueBytes: 0 }).route({ points: [west, east], zones: [calculateZone(graph, validateZone(centrum))] });
    assert.equal(around.body.totalDistance, Math.round(unprepared.distance));

    // With the queue closed, a new zone is not prepared (what prepared the first was the queue), and its trips route the same.
    svc.app.zonePreparation.close();
    assert.equal((await http(`${svc.url}${ZONES_PATH}`, { json: hisingen, headers: auth.headers })).status, 201);
    await new Promise((resolve) => setTimeout(resolve, 100));
    health = await http(`${svc.url}/health`);
    assert.deepEqual([health.body.zonesPrepared, health.body.zonesToPrepare], [1, 0], JSON.stringify(health.body));
    const late = await trip([north, east], ['Hisingen']);
    assert.equal(late.status, 201, late.text);
    const lateUnprepared = new Router(graph, { zoneCliqueBytes: 0 }).route({ points: [north, east], zones: [calculateZone(graph, validateZone(hisingen))] });
    assert.equal(late.body.totalDistance, Math.round(lateUnprepared.distance));
  } finally {
    await svc.close();
    await store.close();
    await kind.dispose();
  }
});
