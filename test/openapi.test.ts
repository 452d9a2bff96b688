import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { DEFAULT_GRAPH_PATH, loadGraph } from '../src/index.js';
import { SqliteStore } from '../src/store/SqliteStore.js';
import { authorise, http, listen, newClient, type TestService } from './support/service.js';

let svc: TestService;
let store: SqliteStore;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let doc: any;

before(async () => {
  store = new SqliteStore(':memory:');
  svc = await listen(loadGraph(DEFAULT_GRAPH_PATH), store);
  doc = (await http(`${svc.url}/docs/json`)).body;
});
after(async () => {
  await svc?.close();
  await store?.close();
});

/** Every operation of the document with its path and method. */
function operations() {
  const out: Array<{ path: string; method: string; op: Record<string, any> }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) out.push({ path, method, op });
  }
  return out;
}

test('the OpenAPI document at /docs/json is valid OpenAPI (checked by @readme/openapi-parser)', async () => {
  assert.equal(typeof doc.openapi, 'string');
  await validate(structuredClone(doc));
});

test('named component schemas, one operationId per operation, grant_type once', () => {
  const names = Object.keys(doc.components.schemas);
  assert.ok(names.includes('ApiError') && names.includes('RestrictionZone'), names.join(', '));
  assert.ok(names.every((n) => !/^def-\d+$/.test(n)), `unnamed schemas: ${names.join(', ')}`);
  const ids = operations().map(({ op }) => op.operationId);
  assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  const token = doc.paths['/oauth/client_credential/accesstoken'].post;
  const grantTypes = (token.parameters ?? []).filter((p: { name: string }) => p.name === 'grant_type').length
    + (token.requestBody.content['application/x-www-form-urlencoded'].schema.properties.grant_type ? 1 : 0);
  assert.equal(grantTypes, 1);
});

test('every operation behind a token asks for the token and the clientId header, and documents its error answers with bodies', () => {
  assert.deepEqual(doc.components.securitySchemes.clientId, { type: 'apiKey', in: 'header', name: 'clientId', description: doc.components.securitySchemes.clientId.description });
  const secured = operations().filter(({ path }) => /^\/(restriction|trip|matrix)\//.test(path));
  assert.ok(secured.length >= 11, `${secured.length} operations`); // 5 zone, 1 trip, 5 matrix
  for (const { path, method, op } of secured) {
    const where = `${method.toUpperCase()} ${path}`;
    assert.deepEqual(op.security, [{ bearer: [], clientId: [] }], where);
    assert.ok(!(op.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'clientid'), `${where}: clientId is a security scheme, not a parameter too`);
    const wanted = ['400', '401', '403', '500', ...(method === 'post' || method === 'put' ? ['413', '415'] : []), ...(path.includes('{') ? ['404'] : [])];
    for (const status of wanted) {
      const answer = op.responses[status];
      assert.ok(answer, `${where} documents ${status}`);
      assert.ok(answer.description && answer.description !== 'Default Response', `${where} ${status} says when`);
      assert.ok(answer.content?.['application/json']?.schema, `${where} ${status} has a body`);
    }
  }
});

test('the examples in the document work as they are: the zone, the trip around it and the matrix', async () => {
  const example = (path: string, method: string) => {
    const media = doc.paths[path][method].requestBody.content['application/json'];
    const found = media.example ?? (Object.values(media.examples ?? {}) as Array<{ value?: unknown }>)[0]?.value ?? media.schema.examples?.[0];
    assert.ok(found, `${method.toUpperCase()} ${path} has an example body`);
    return found;
  };
  const { headers } = await authorise(svc.url, await newClient(store));
  const zone = await http(`${svc.url}/restriction/v1/restrictionZones`, { headers, json: example('/restriction/v1/restrictionZones', 'post') });
  assert.equal(zone.status, 201, zone.text);
  assert.equal(zone.body.status.name, 'CALCULATED');
  const trip = await http(`${svc.url}/trip/v2/calculations`, { headers, json: example('/trip/v2/calculations', 'post') });
  assert.equal(trip.status, 201, trip.text);
  assert.ok(trip.body.totalDistance > 0);
  const matrix = await http(`${svc.url}/matrix/v1/calculations`, { headers, json: example('/matrix/v1/calculations', 'post') });
  assert.equal(matrix.status, 200, matrix.text);
  assert.ok(matrix.body.elements.every((e: { distance: number | null }) => e.distance !== null && e.distance > 0));
});
