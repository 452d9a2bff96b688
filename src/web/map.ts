/**
 * The map page: signs in with a client's id and secret, shows and edits the client's restriction
 * zones (their shapes and hours) through the Restriction Zone API, and routes between clicked stops
 * through the Trip API at a departure, with and without the checked zones side by side, the route
 * around them with its instructions and its waits for zones to open. Talks to the service like any client does.
 */
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, StyleSpecification } from 'maplibre-gl';
import { TerraDraw, TerraDrawPolygonMode, TerraDrawSelectMode } from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import polyline from '@mapbox/polyline';

interface MapConfig {
  bounds: [number, number, number, number];
  tiles: { url: string; minzoom: number; maxzoom: number; layer: string };
  attribution: string;
  basemap: { url: string; attribution: string } | null;
}
interface Vertex { latitude: number; longitude: number }
interface Schedule { timeZone: string; windows: Array<{ days: string[]; from: string; to: string }>; exceptions?: Array<{ date: string; active: boolean }> }
interface Zone {
  name: string;
  geometries: Array<{ name?: string; vertices: Vertex[] }>;
  vehicles?: unknown;
  avoidance?: unknown;
  schedule?: Schedule;
  status: { name: string; description: string };
}
interface Wait { zone: string; latitude: number; longitude: number; from: string; until: string; duration: number }
interface TurnByTurn { distance: number; type: string; points: Array<[number, number]>; text: string; duration: number; exitNumber?: number }
interface TripLeg {
  distance: number; nominalDuration: number; points: Array<[number, number]>;
  restrictionZonesEntered?: Array<{ name: string; distanceInside: number }>; turnByTurn?: TurnByTurn[]; waits?: Wait[];
}
interface Trip { totalDistance: number; totalNominalDuration: number; averageSpeed: number; legs: TripLeg[] }

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const session = { token: '', clientId: '' };
let zones: Zone[] = [];
const checked = new Set<string>();
const stops: Array<{ lngLat: [number, number]; marker: maplibregl.Marker }> = [];
/** The zone whose shape is being edited, or null while a new zone is drawn. */
let editing: string | null = null;
let routeRequest = 0;

function say(text: string, ok = false): void {
  const el = $('message');
  el.textContent = text;
  el.className = ok ? 'ok' : '';
}

/** A call to the service with the session's token and client id; API errors become exceptions with their message. */
async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}`, clientId: session.clientId };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const why = json?.message ?? json?.Error ?? json?.fault?.faultstring ?? res.statusText;
    const detail = Array.isArray(json?.errors) ? ` (${json.errors.map((e: { path: string; message: string }) => `${e.path} ${e.message}`).join('; ')})` : '';
    throw new Error(`${res.status} ${json?.code ?? json?.ErrorCode ?? ''}: ${why}${detail}`);
  }
  return json as T;
}

async function signIn(clientId: string, clientSecret: string): Promise<void> {
  const res = await fetch('/oauth/client_credential/accesstoken?grant_type=client_credentials', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }).toString(),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`sign-in failed: ${json.Error ?? json.fault?.faultstring ?? res.statusText}`);
  session.token = json.access_token;
  session.clientId = clientId;
  sessionStorage.setItem('detour.session', JSON.stringify(session));
  showSignedIn();
  await refreshZones();
}

function showSignedIn(): void {
  $('sign-in').hidden = true;
  $('signed-in').hidden = false;
  $('who').textContent = session.clientId;
  $('draw-zone').focus();
}

function ring(z: Zone): Array<Array<[number, number]>> {
  return z.geometries.map((g) => {
    const r = g.vertices.map((v) => [v.longitude, v.latitude] as [number, number]);
    const [first, last] = [r[0], r[r.length - 1]];
    if (first[0] !== last[0] || first[1] !== last[1]) r.push(first);
    return r;
  });
}

async function refreshZones(): Promise<void> {
  zones = await api<Zone[]>('/restriction/v1/restrictionZones');
  for (const name of [...checked]) if (!zones.some((z) => z.name === name)) checked.delete(name);
  renderZones();
  (map.getSource('zones') as GeoJSONSource | undefined)?.setData({
    type: 'FeatureCollection',
    features: zones.map((z) => ({
      type: 'Feature',
      properties: { name: z.name, checked: checked.has(z.name) },
      geometry: { type: 'MultiPolygon', coordinates: ring(z).map((r) => [r]) },
    })),
  });
  // Zones still calculating: look again shortly.
  if (zones.some((z) => z.status.name === 'IN_CALCULATION')) setTimeout(() => void refreshZones().catch((e) => say(String(e.message ?? e))), 500);
}

/** The zone's body as the API takes it, its rules kept (`schedule`: replaced when given; null removes it). */
function zoneBody(z: Zone, name: string, schedule?: Schedule | null): Record<string, unknown> {
  const { status: _, schedule: kept, ...rest } = z;
  const hours = schedule === undefined ? kept : schedule ?? undefined;
  return { ...rest, name, ...(hours && { schedule: hours }) };
}

/** The hours form as a schedule, or null when unchecked. */
function formSchedule(): Schedule | null {
  if (!($('hours-on') as HTMLInputElement).checked) return null;
  const days = [...document.querySelectorAll<HTMLInputElement>('#hours .days input:checked')].map((b) => b.value);
  const timeZone = ($('hours-zone') as HTMLInputElement).value.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone;
  return { timeZone, windows: [{ days, from: ($('hours-from') as HTMLInputElement).value, to: ($('hours-to') as HTMLInputElement).value }] };
}

function describeSchedule(s: Schedule): string {
  return `${s.windows.map((w) => `${w.days.join(' ')} ${w.from}-${w.to}`).join(', ')} (${s.timeZone})`;
}

function renderZones(): void {
  const list = $('zones');
  list.replaceChildren();
  for (const z of zones) {
    const li = document.createElement('li');
    const id = `zone-${encodeURIComponent(z.name)}`;
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', id, checked: checked.has(z.name) });
    box.style.width = 'auto';
    box.addEventListener('change', () => {
      if (box.checked) checked.add(z.name); else checked.delete(z.name);
      void refreshZones().then(() => route()).catch((e) => say(e.message));
    });
    const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: z.name });
    label.style.display = 'inline';
    const status = Object.assign(document.createElement('span'), { className: `status ${z.status.name}`, textContent: z.status.name, title: z.status.description });
    const actions = document.createElement('div');
    actions.className = 'actions';
    const rename = Object.assign(document.createElement('input'), { value: z.name });
    rename.setAttribute('aria-label', `New name for ${z.name}`);
    const button = (text: string, aria: string, run: () => Promise<void>) => {
      const b = Object.assign(document.createElement('button'), { type: 'button', textContent: text });
      b.setAttribute('aria-label', aria);
      b.addEventListener('click', () => void run().catch((e) => say(e.message)));
      return b;
    };
    actions.append(
      rename,
      button('Rename', `Rename ${z.name}`, async () => {
        const to = rename.value.trim();
        if (to === z.name) return;
        await api('/restriction/v1/restrictionZones', { method: 'POST', body: zoneBody(z, to) });
        await api(`/restriction/v1/restrictionZones/${encodeURIComponent(z.name)}`, { method: 'DELETE' });
        if (checked.delete(z.name)) checked.add(to);
        say(`Renamed ${z.name} to ${to}`, true);
        await refreshZones();
      }),
      button('Edit shape', `Edit the shape of ${z.name}`, async () => editShape(z)),
      button('Set hours', `Set the hours of ${z.name}`, async () => {
        await api(`/restriction/v1/restrictionZones/${encodeURIComponent(z.name)}`, { method: 'PUT', body: zoneBody(z, z.name, formSchedule()) });
        await refreshZones();
        await route(`Set the hours of ${z.name}`);
      }),
      button('Delete', `Delete ${z.name}`, async () => {
        await api(`/restriction/v1/restrictionZones/${encodeURIComponent(z.name)}`, { method: 'DELETE' });
        checked.delete(z.name);
        say(`Deleted ${z.name}`, true);
        await refreshZones();
        await route(`Deleted ${z.name}`);
      }),
    );
    li.append(box, ' ', label, status);
    if (z.schedule) li.append(Object.assign(document.createElement('span'), { className: 'hours', textContent: `active ${describeSchedule(z.schedule)}` }));
    li.append(actions);
    list.append(li);
  }
}

function drawing(on: boolean): void {
  $('draw-zone').hidden = on;
  $('save-shape').hidden = !on || editing === null;
  $('cancel-draw').hidden = !on;
  $('draw-hint').hidden = !on || editing !== null;
}

function startDrawing(): void {
  editing = null;
  draw.clear();
  draw.setMode('polygon');
  drawing(true);
}

function editShape(z: Zone): void {
  editing = z.name;
  draw.clear();
  draw.setMode('select');
  draw.addFeatures(ring(z).map((r) => ({ type: 'Feature' as const, properties: { mode: 'polygon' }, geometry: { type: 'Polygon' as const, coordinates: [r] } })));
  drawing(true);
  say(`Drag the corners of ${z.name}, then Save shape`, true);
}

function stopDrawing(): void {
  draw.clear();
  draw.setMode('static');
  editing = null;
  drawing(false);
}

/** The drawn polygons as the API's geometries. */
function drawnGeometries(): Zone['geometries'] {
  return draw.getSnapshot()
    .filter((f) => f.geometry.type === 'Polygon')
    .map((f, i) => ({
      name: `part ${i + 1}`,
      vertices: (f.geometry.coordinates as number[][][])[0].slice(0, -1).map(([longitude, latitude]) => ({ latitude, longitude })),
    }));
}

async function saveDrawnZone(): Promise<void> {
  const geometries = drawnGeometries();
  if (geometries.length === 0) return;
  const name = editing ?? ($('zone-name') as HTMLInputElement).value.trim();
  if (editing) {
    const z = zones.find((x) => x.name === name);
    await api(`/restriction/v1/restrictionZones/${encodeURIComponent(name)}`, { method: 'PUT', body: z ? { ...zoneBody(z, name), geometries } : { name, geometries } });
  } else {
    const schedule = formSchedule();
    await api('/restriction/v1/restrictionZones', { method: 'POST', body: { name, geometries, ...(schedule && { schedule }) } });
    const input = $('zone-name') as HTMLInputElement;
    const n = /-(\d+)$/.exec(name);
    input.value = n ? name.replace(/\d+$/, String(Number(n[1]) + 1)) : `${name}-2`;
    checked.add(name);
  }
  stopDrawing();
  say(`Saved ${name}`, true);
  await refreshZones();
  await route(`Saved ${name}`);
}

function renumberStops(): void {
  const list = $('stops');
  list.replaceChildren();
  stops.forEach((s, i) => {
    s.marker.getElement().textContent = String(i + 1);
    s.marker.getElement().setAttribute('aria-label', `Stop ${i + 1}`);
    const li = document.createElement('li');
    li.textContent = `${s.lngLat[1].toFixed(5)}, ${s.lngLat[0].toFixed(5)} `;
    const remove = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Remove' });
    remove.setAttribute('aria-label', `Remove stop ${i + 1}`);
    remove.addEventListener('click', () => {
      s.marker.remove();
      stops.splice(stops.indexOf(s), 1);
      renumberStops();
      void route();
    });
    li.append(remove);
    list.append(li);
  });
}

function addStop(lngLat: [number, number]): void {
  const el = document.createElement('div');
  el.className = 'stop-marker';
  el.tabIndex = 0;
  const stop = { lngLat, marker: new maplibregl.Marker({ element: el, draggable: true }).setLngLat(lngLat).addTo(map) };
  stop.marker.on('dragend', () => {
    const p = stop.marker.getLngLat();
    stop.lngLat = [p.lng, p.lat];
    renumberStops();
    void route();
  });
  stops.push(stop);
  renumberStops();
  void route();
}

function showResult(id: string, trip: Trip | null, error?: string): void {
  const dl = $(id).querySelector('dl')!;
  dl.replaceChildren();
  const row = (k: string, v: string) => {
    dl.append(Object.assign(document.createElement('dt'), { textContent: k }), Object.assign(document.createElement('dd'), { textContent: v }));
  };
  if (error) row('error', error);
  if (!trip) return;
  row('distance', `${(trip.totalDistance / 1000).toFixed(2)} km`);
  row('duration', `${Math.floor(trip.totalNominalDuration / 60)} min ${trip.totalNominalDuration % 60} s`);
  const entered = trip.legs.flatMap((l) => l.restrictionZonesEntered ?? []);
  row('zones entered', entered.length ? entered.map((z) => `${z.name} (${z.distanceInside} m)`).join(', ') : 'none');
  const waits = trip.legs.flatMap((l) => l.waits ?? []);
  if (waits.length) row('waits', waits.map((w) => `${w.zone}: ${Math.round(w.duration / 60)} min, until ${new Date(w.until).toLocaleTimeString()}`).join('; '));
  const line = trip.legs.flatMap((l) => l.points);
  row('polyline', polyline.encode(line));
}

/** The route's instructions, each a button that highlights its stretch of the route on the map. */
function showSteps(trip: Trip | null): void {
  const list = $('steps');
  list.replaceChildren();
  setStep(null);
  for (const step of trip?.legs.flatMap((l) => l.turnByTurn ?? []) ?? []) {
    const button = Object.assign(document.createElement('button'), { type: 'button', textContent: step.text });
    button.setAttribute('aria-pressed', 'false');
    if (step.distance > 0) button.append(Object.assign(document.createElement('span'), { className: 'distance', textContent: step.distance >= 1000 ? `${(step.distance / 1000).toFixed(1)} km` : `${Math.round(step.distance)} m` }));
    const pick = () => {
      for (const b of list.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
      setStep(step);
    };
    button.addEventListener('click', pick);
    button.addEventListener('mouseenter', pick);
    button.addEventListener('focus', pick);
    list.append(Object.assign(document.createElement('li'), { className: step.type }));
    list.lastElementChild!.append(button);
  }
}

/** Highlights a step's stretch of the route (none: clears it). */
function setStep(step: TurnByTurn | null): void {
  const coordinates = step ? step.points.map(([lat, lon]) => [lon, lat]) : [];
  map.getSource<GeoJSONSource>('step')?.setData({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates } });
  document.body.dataset.stepPoints = String(coordinates.length);
}

function setLine(source: string, trip: Trip | null): void {
  const coordinates = trip ? trip.legs.flatMap((l) => l.points.map(([lat, lon]) => [lon, lat])) : [];
  (map.getSource(source) as GeoJSONSource).setData({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates } });
}

/**
 * Both routes through the stops: without zones and around the checked ones. `after`: the action
 * that asked for them (a zone saved or deleted), kept at the head of the message so it is not
 * replaced a moment after it appears.
 */
async function route(after?: string): Promise<void> {
  const ticket = ++routeRequest;
  if (stops.length < 2 || !session.token) {
    for (const [s, r] of [['route-free', 'result-free'], ['route-zones', 'result-zones']]) { setLine(s, null); showResult(r, null); }
    showSteps(null);
    return;
  }
  const vehicleType = ($('vehicle') as HTMLSelectElement).value;
  const departure = ($('departure') as HTMLInputElement).value;
  const body = {
    calculationMode: ($('mode') as HTMLSelectElement).value,
    ...(vehicleType ? { vehicleType } : {}),
    ...(departure ? { startDate: new Date(departure).toISOString() } : {}),
    points: stops.map((s, i) => ({ latitude: s.lngLat[1], longitude: s.lngLat[0], siteId: `stop ${i + 1}` })),
  };
  const names = [...checked];
  const [free, around] = await Promise.allSettled([
    api<Trip>('/trip/v2/calculations?pointsMode=array', { method: 'POST', body }),
    api<Trip>('/trip/v2/calculations?pointsMode=array', {
      method: 'POST', body: { ...body, restrictionZones: names, turnByTurn: { language: ($('language') as HTMLSelectElement).value } },
    }),
  ]);
  if (ticket !== routeRequest) return; // a newer request has started
  const show = (s: string, r: string, result: PromiseSettledResult<Trip>) => {
    setLine(s, result.status === 'fulfilled' ? result.value : null);
    showResult(r, result.status === 'fulfilled' ? result.value : null, result.status === 'rejected' ? String(result.reason.message) : undefined);
  };
  show('route-free', 'result-free', free);
  show('route-zones', 'result-zones', around);
  showSteps(around.status === 'fulfilled' ? around.value : null);
  const waits = around.status === 'fulfilled' ? around.value.legs.flatMap((l) => l.waits ?? []) : [];
  map.getSource<GeoJSONSource>('waits')?.setData({
    type: 'FeatureCollection',
    features: waits.map((w) => ({ type: 'Feature', properties: { zone: w.zone }, geometry: { type: 'Point', coordinates: [w.longitude, w.latitude] } })),
  });
  const failed = [free, around].find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
  const head = after ? `${after}; ` : '';
  if (failed) say(`${head}${failed.reason.message}`);
  else say(`${head}${after ? 'routed' : 'Routed'} ${stops.length} stops${names.length ? ` around ${names.join(', ')}` : ''}`, true);
  document.body.dataset.routed = String(ticket);
}

// --- the map ---------------------------------------------------------------------------------
const config = (await (await fetch('/map/config')).json()) as MapConfig;
const style: StyleSpecification = {
  version: 8,
  sources: {
    roads: { type: 'vector', tiles: [new URL(config.tiles.url, location.href).href.replace(/%7B/g, '{').replace(/%7D/g, '}')], minzoom: config.tiles.minzoom, maxzoom: config.tiles.maxzoom, attribution: config.attribution },
    ...(config.basemap ? { basemap: { type: 'raster' as const, tiles: [config.basemap.url], tileSize: 256, attribution: config.basemap.attribution } } : {}),
  },
  layers: [
    { id: 'background', type: 'background', paint: { 'background-color': '#f2efe9' } },
    ...(config.basemap ? [{ id: 'basemap', type: 'raster' as const, source: 'basemap' }] : []),
    {
      id: 'roads-casing', type: 'line', source: 'roads', 'source-layer': config.tiles.layer,
      paint: { 'line-color': '#9e9e9e', 'line-width': ['interpolate', ['linear'], ['zoom'], 10, 1.5, 16, 9] },
    },
    {
      id: 'roads', type: 'line', source: 'roads', 'source-layer': config.tiles.layer,
      paint: {
        'line-color': ['match', ['get', 'class'], ['motorway', 'motorway_link', 'trunk', 'trunk_link'], '#f4a460', ['primary', 'primary_link'], '#fcd68a', ['ferry'], '#6fa8dc', '#ffffff'],
        'line-width': ['interpolate', ['linear'], ['zoom'], 10, 0.8, 16, 7],
      },
    },
  ],
};
document.getElementById('attribution')!.textContent = `Roads: ${config.attribution}${config.basemap ? `; basemap: ${config.basemap.attribution}` : ''}`;
const map = new maplibregl.Map({ container: 'map', style, bounds: config.bounds, fitBoundsOptions: { padding: 20 }, attributionControl: { compact: false } });
map.addControl(new maplibregl.NavigationControl(), 'top-right');
(window as unknown as { detourMap: maplibregl.Map }).detourMap = map;
await new Promise<void>((resolve) => map.on('load', () => resolve()));

map.addSource('zones', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
map.addLayer({ id: 'zones-fill', type: 'fill', source: 'zones', paint: { 'fill-color': ['case', ['get', 'checked'], '#d32f2f', '#9e9e9e'], 'fill-opacity': 0.25 } });
map.addLayer({ id: 'zones-line', type: 'line', source: 'zones', paint: { 'line-color': ['case', ['get', 'checked'], '#d32f2f', '#757575'], 'line-width': 2 } });
for (const [id, paint] of [
  ['route-free', { 'line-color': '#616161', 'line-width': 4, 'line-dasharray': [2, 1.5] }],
  ['route-zones', { 'line-color': '#1a73e8', 'line-width': 5, 'line-opacity': 0.85 }],
  ['step', { 'line-color': '#fbc02d', 'line-width': 9, 'line-opacity': 0.9 }],
] as const) {
  map.addSource(id, { type: 'geojson', data: { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: [] } } });
  map.addLayer({ id, type: 'line', source: id, paint: paint as maplibregl.LineLayerSpecification['paint'], layout: { 'line-cap': 'round', 'line-join': 'round' } });
}
// Where the route waits for a scheduled zone to open.
map.addSource('waits', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
map.addLayer({ id: 'waits', type: 'circle', source: 'waits', paint: { 'circle-radius': 7, 'circle-color': '#fbc02d', 'circle-stroke-color': '#5d4037', 'circle-stroke-width': 2 } });

const draw = new TerraDraw({
  adapter: new TerraDrawMapLibreGLAdapter({ map }),
  modes: [
    new TerraDrawPolygonMode(),
    new TerraDrawSelectMode({ flags: { polygon: { feature: { coordinates: { draggable: true, midpoints: true, deletable: true } } } } }),
  ],
});
draw.start();
draw.on('finish', (_id, context) => {
  if (context.mode === 'polygon' && editing === null) void saveDrawnZone().catch((e) => say(e.message));
});

map.on('click', (e: maplibregl.MapMouseEvent) => {
  if (draw.getMode() !== 'static' || !session.token) return;
  addStop([e.lngLat.lng, e.lngLat.lat]);
});

$('sign-in').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = ($('client-id') as HTMLInputElement).value.trim(), secret = ($('client-secret') as HTMLInputElement).value;
  void signIn(id, secret).then(() => say('Signed in', true)).catch((err) => say(err.message));
});
$('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem('detour.session');
  location.reload();
});
$('draw-zone').addEventListener('click', startDrawing);
$('cancel-draw').addEventListener('click', stopDrawing);
$('save-shape').addEventListener('click', () => void saveDrawnZone().catch((e) => say(e.message)));
$('mode').addEventListener('change', () => void route());
$('vehicle').addEventListener('change', () => void route());
$('language').addEventListener('change', () => void route());
$('departure').addEventListener('change', () => void route());
$('clear-stops').addEventListener('click', () => {
  for (const s of stops) s.marker.remove();
  stops.length = 0;
  renumberStops();
  void route();
});

const saved = sessionStorage.getItem('detour.session');
if (saved) {
  Object.assign(session, JSON.parse(saved));
  showSignedIn();
  await refreshZones().catch((e) => {
    say(`${e.message}; sign in again`);
    $('sign-in').hidden = false;
    $('signed-in').hidden = true;
  });
}
document.body.dataset.ready = 'true';
