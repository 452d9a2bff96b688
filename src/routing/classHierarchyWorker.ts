/**
 * Worker thread entry: a vehicle class's own hierarchies (Router.vehicleHierarchies) made off the
 * caller's thread, so a service's event loop neither derives them nor waits: the class's edge costs
 * (vehicleClassCosts) and the graph's contraction order are made here, over the caller's graph on
 * shared memory (its reverse adjacency adopted), and let go when the thread ends. Posts each metric's
 * hierarchy on SharedArrayBuffers as it is done (one metric after the other: a contraction's
 * working graph is several times the graph's own), or `none` for a vehicle that drives every road
 * as a car does.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RoadGraph, type Metric } from '../graph/RoadGraph.js';
import { withSharedArrays } from '../graph/sharedGraph.js';
import { contractMetricInOrder } from '../hierarchy/contractInOrder.js';
import { withHierarchy } from '../hierarchy/hierarchySections.js';
import type { SharedRouterData } from './routerThread.js';
import { vehicleClassCosts, vehicleSpeedsKey, type Vehicle } from './vehicle.js';

const { router: data, vehicle } = workerData as { router: SharedRouterData; vehicle: Vehicle };
const graph = withHierarchy(new RoadGraph(data.arrays, data.meta, data.indexes), data.hierarchy);
graph.adoptRoadMillis(data.roadMillis);
graph.adoptReverseAdjacency(data.reverse);
const costs = vehicleClassCosts(graph, vehicle, data.roadTimes.find((t) => t.key === vehicleSpeedsKey(vehicle)));
if (!costs) parentPort!.postMessage({ none: true });
else for (const metric of ['duration', 'distance'] as Metric[]) parentPort!.postMessage({ metric, hierarchy: withSharedArrays(contractMetricInOrder(graph, metric, costs[metric])) });
