/**
 * The map page in a real browser (Debian's Chromium driven by playwright-core): sign in, set two
 * stops, draw a zone across the route with mouse clicks, see the route avoid it, delete the zone.
 * The routes are checked against @turf/boolean-intersects on the zone as the API stores it.
 * Screenshots go to test-output/. Skips with the reason when Chromium is missing, unless
 * DETOUR_REQUIRE_BROWSER=1 (CI) makes that a failure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import polyline from '@mapbox/polyline';
import booleanIntersects from '@turf/boolean-intersects';
import { lineString, polygon } from '@turf/helpers';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import type { Store } from '../src/store/Store.js';
import { authorise, http, listen, newClient, sqliteKind, ZONES_PATH, type TestService } from './support/service.js';
import { ROOT } from './support/helpers.js';

// Functions given to page.evaluate / waitForFunction run in the page, with the page's globals.
declare const window: any;
declare const document: any;

const CHROMIUM = process.env.DETOUR_CHROMIUM ?? '/usr/bin/chromium';
const OUTPUT = join(ROOT, 'test-output') + '/';
const missing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set DETOUR_CHROMIUM)`;
if (missing && process.env.DETOUR_REQUIRE_BROWSER === '1') throw new Error(`browser tests required (DETOUR_REQUIRE_BROWSER=1) but ${missing}`);
if (missing) console.log(`# map page tests skipped: ${missing}`);

// West to east across the middle of Gothenburg; the zone is drawn across the straight route.
const WEST = { latitude: 57.7055, longitude: 11.95 };
const EAST = { latitude: 57.7055, longitude: 11.985 };
const ZONE = [[11.96, 57.699], [11.975, 57.699], [11.975, 57.712], [11.96, 57.712]];

describe('map page in Chromium', { skip: missing }, () => {
  let store: Store;
  let svc: TestService;
  let browser: Browser;
  let page: Page;
  let client: { clientId: string; clientSecret: string };
  const browserErrors: string[] = [];

  before(async () => {
    mkdirSync(OUTPUT, { recursive: true });
    store = await sqliteKind().open();
    svc = await listen(loadGraph(DEFAULT_GRAPH_PATH), store);
    client = await newClient(store);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (err) => browserErrors.push(err.message));
    page.on('console', (msg) => { if (msg.type() === 'error') browserErrors.push(msg.text()); });
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
    await store?.close();
  });

  /** Pixel position of a coordinate on the page's map. */
  const pixel = async (lon: number, lat: number) => {
    const box = (await page.locator('#map').boundingBox())!;
    const p = await page.evaluate(([x, y]) => (window as unknown as { detourMap: { project(c: [number, number]): { x: number; y: number } } }).detourMap.project([x, y]), [lon, lat]);
    return { x: box.x + p.x, y: box.y + p.y };
  };
  const clickMap = async (lon: number, lat: number) => {
    const { x, y } = await pixel(lon, lat);
    await page.mouse.click(x, y);
  };
  const resultOf = async (id: string) => {
    const cells = await page.locator(`#${id} dd`).allTextContents();
    const terms = await page.locator(`#${id} dt`).allTextContents();
    return Object.fromEntries(terms.map((t, i) => [t, cells[i]]));
  };
  const routedAfter = async (before: string | undefined) =>
    page.waitForFunction((b) => document.body.dataset.routed !== undefined && document.body.dataset.routed !== b, before, { timeout: 15_000 });

  test('sign in (a wrong secret is an error message), route, draw a zone, see the detour, give it hours and leave at night and by day, rename and reshape it, delete it, pick a vehicle', async () => {
    await page.goto(`${svc.url}/`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', undefined, { timeout: 20_000 });
    // The road tiles arrive and draw.
    await page.waitForFunction(() => {
      const map = (window as unknown as { detourMap: { areTilesLoaded(): boolean; querySourceFeatures(s: string, o: object): unknown[] } }).detourMap;
      return map.areTilesLoaded() && map.querySourceFeatures('roads', { sourceLayer: 'roads' }).length > 100;
    }, undefined, { timeout: 20_000 });

    await page.getByLabel('Client id').fill(client.clientId);
    await page.getByLabel('Client secret').fill('not the secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction(() => /sign-in failed/.test(document.getElementById('message')!.textContent ?? ''));
    await page.getByLabel('Client secret').fill(client.clientSecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#signed-in').waitFor({ state: 'visible' });

    await page.evaluate(() => (window as unknown as { detourMap: { jumpTo(o: object): void } }).detourMap.jumpTo({ center: [11.9675, 57.7055], zoom: 13 }));
    await page.waitForTimeout(300);
    let routed = await page.evaluate(() => document.body.dataset.routed);
    await clickMap(WEST.longitude, WEST.latitude);
    await clickMap(EAST.longitude, EAST.latitude);
    await routedAfter(routed);
    const free = await resultOf('result-free');
    assert.match(free.distance, /km$/);
    await page.screenshot({ path: `${OUTPUT}map-page-route.png` });

    // Draw the zone: corners clicked on the map, Enter to finish; the page saves and checks it.
    await page.getByRole('button', { name: 'Draw a zone' }).click();
    await page.getByLabel('New zone name').fill('bridge-block');
    routed = await page.evaluate(() => document.body.dataset.routed);
    for (const [lon, lat] of ZONE) await clickMap(lon, lat);
    await page.keyboard.press('Enter');
    await page.locator('#zones li').first().waitFor();
    await page.waitForFunction(() => /CALCULATED/.test(document.getElementById('zones')!.textContent ?? ''), undefined, { timeout: 15_000 });
    await routedAfter(routed);
    const headers = (await authorise(svc.url, client)).headers;
    const zones = (await http(`${svc.url}${ZONES_PATH}`, { headers })).body as Array<{ name: string; geometries: Array<{ vertices: Array<{ latitude: number; longitude: number }> }> }>;
    assert.equal(zones.length, 1);
    const ring = zones[0].geometries[0].vertices.map((v) => [v.longitude, v.latitude]);
    const zonePolygon = polygon([[...ring, ring[0]]]);

    const around = await resultOf('result-zones');
    const line = (encoded: string) => lineString(polyline.decode(encoded).map(([lat, lon]) => [lon, lat]));
    assert.ok(booleanIntersects(line(free.polyline), zonePolygon), 'the free route crosses the drawn zone');
    assert.ok(!booleanIntersects(line(around.polyline), zonePolygon), 'the route with the zone stays out of it');
    assert.equal(around['zones entered'], 'none');
    assert.ok(parseFloat(around.distance) > parseFloat(free.distance), `${around.distance} vs ${free.distance}`);
    await page.screenshot({ path: `${OUTPUT}map-page-detour.png` });

    // Hours: active on weekdays 07:00-19:00 in Stockholm. Leaving on a Monday night the route goes
    // through the zone, by day around it (the browser's local time here is its time zone's).
    await page.getByLabel('Active only at these hours').check();
    await page.getByLabel('From', { exact: true }).fill('07:00');
    await page.getByLabel('to', { exact: true }).fill('19:00');
    await page.getByLabel('Time zone').fill('Europe/Stockholm');
    routed = await page.evaluate(() => document.body.dataset.routed);
    await page.getByRole('button', { name: `Set the hours of ${zones[0].name}` }).click();
    await routedAfter(routed);
    assert.deepEqual((await http(`${svc.url}${ZONES_PATH}/${zones[0].name}`, { headers })).body.schedule,
      { timeZone: 'Europe/Stockholm', windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '07:00', to: '19:00' }] });
    await page.waitForFunction(() => /active MON TUE WED THU FRI 07:00-19:00/.test(document.getElementById('zones')!.textContent ?? ''));
    const offset = await page.evaluate(() => new Date('2026-12-07T12:00:00Z').getTimezoneOffset());
    const localTime = (iso: string) => new Date(Date.parse(iso) - offset * 60_000).toISOString().slice(0, 16);
    for (const [at, through] of [['2026-12-07T22:30:00+01:00', true], ['2026-12-07T10:00:00+01:00', false]] as const) {
      routed = await page.evaluate(() => document.body.dataset.routed);
      await page.getByLabel('Departure').fill(localTime(at));
      await routedAfter(routed);
      const r = await resultOf('result-zones');
      assert.equal(r.distance === free.distance, through, `${at}: ${r.distance} vs ${free.distance}`);
    }

    // Rename it (a new zone, the old one deleted) and save its shape again (PUT).
    await page.getByLabel(`New name for ${zones[0].name}`).fill('renamed');
    await page.getByRole('button', { name: `Rename ${zones[0].name}` }).click();
    await page.waitForFunction(() => /Renamed/.test(document.getElementById('message').textContent ?? ''));
    assert.deepEqual(((await http(`${svc.url}${ZONES_PATH}`, { headers })).body as Array<{ name: string }>).map((z) => z.name), ['renamed']);
    await page.getByRole('button', { name: 'Edit the shape of renamed' }).click();
    await page.getByRole('button', { name: 'Save shape' }).click();
    await page.waitForFunction(() => /^Saved renamed; routed 2 stops around renamed/.test(document.getElementById('message')!.textContent ?? ''));
    const saved = (await http(`${svc.url}${ZONES_PATH}/renamed`, { headers })).body;
    assert.equal(saved.geometries[0].vertices.length, ring.length);
    assert.equal(saved.schedule?.timeZone, 'Europe/Stockholm', 'renaming and reshaping keep the hours');

    routed = await page.evaluate(() => document.body.dataset.routed);
    await page.getByRole('button', { name: 'Delete renamed' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#zones li').length === 0);
    await routedAfter(routed);
    // The action's message stays once the routes are redrawn (they do not replace it).
    assert.match((await page.locator('#message').textContent()) ?? '', /^Deleted renamed; routed 2 stops/);
    assert.deepEqual((await http(`${svc.url}${ZONES_PATH}`, { headers })).body, []);
    assert.equal((await resultOf('result-zones')).distance, free.distance);
    await page.screenshot({ path: `${OUTPUT}map-page-deleted.png` });
    // Pick a vehicle: the routes are asked for it, and answered for it.
    routed = await page.evaluate(() => document.body.dataset.routed);
    const asked = page.waitForResponse((r) => r.url().includes('/trip/v2/calculations') && r.request().postDataJSON()?.vehicleType === 'TRUCK_WITH_TWO_DOUBLE_AXLES');
    await page.getByLabel('Vehicle').selectOption('TRUCK_WITH_TWO_DOUBLE_AXLES');
    assert.equal((await (await asked).json()).vehicle.vehicleType, 'TRUCK_WITH_TWO_DOUBLE_AXLES');
    await routedAfter(routed);
    assert.match((await resultOf('result-free')).distance, /km$/);
    // Instructions in the language picked, each highlighting its stretch of the route.
    routed = await page.evaluate(() => document.body.dataset.routed);
    await page.getByLabel('Instructions', { exact: true }).selectOption('pt_BR');
    await routedAfter(routed);
    const steps = page.getByRole('list', { name: 'Turn-by-turn instructions' }).getByRole('button');
    assert.ok((await steps.count()) >= 2);
    assert.equal(await steps.last().textContent(), 'Você chegou ao seu destino');
    assert.match((await steps.first().textContent()) ?? '', /^Siga /);
    await steps.nth(1).click();
    assert.equal(await steps.nth(1).getAttribute('aria-pressed'), 'true');
    assert.ok(Number(await page.evaluate(() => document.body.dataset.stepPoints)) >= 2, 'the step\'s stretch is highlighted');
    await page.screenshot({ path: `${OUTPUT}map-page-steps.png` });
    // The wrong secret's 401 is expected (and shown); nothing else may fail or throw.
    assert.deepEqual(browserErrors.filter((e) => !/status of 401/.test(e)), []);
  });
});
