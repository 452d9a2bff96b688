// The HTTP service and its stores, as `detour/service`: kept apart from `detour` so the library
// loads without fastify, pg or the better-sqlite3 native module.
export { createService, type ServiceOptions } from './createService.js';
export { startService, configFromEnv, recalculateStoredZones, type ServeConfig, type RunningService } from './startService.js';
export { registerClient, hashSecret, verifySecret, API_PRODUCTS, type ApiProduct, type NewClient } from './credentials.js';
export { SqliteStore } from '../store/SqliteStore.js';
export { PostgresStore, type PostgresStoreOptions } from '../store/PostgresStore.js';
export { openStore, type StoreConfig } from '../store/openStore.js';
export type { Store, ClientStore, TokenStore, ZoneStore, ClientRecord, TokenRecord, StoredZone } from '../store/Store.js';
export { calculateTrip, type TripRequest, type TripResponse, type TripLeg, type TripPoint } from '../trip/calculateTrip.js';
