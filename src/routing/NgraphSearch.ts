import { DetourError, ErrorCode } from '../errors.js';
import type { Graph, Link, Node } from 'ngraph.graph';
import ngraphPath from 'ngraph.path';
import { haversineMetres } from '../geo/haversine.js';
import { toNgraph, type NgraphNodeData } from '../graph/ngraphBridge.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';

/** Ids of the two nodes each query adds to the ngraph for its endpoints (road nodes are 0..n-1). */
const SOURCE = 'source';
const TARGET = 'target';

/**
 * The same search on ngraph.path's A* over an ngraph.graph built from the RoadGraph: a second,
 * independent engine behind the PathSearch interface. Each query adds a source node linked to its
 * source endpoints and a target node its target endpoints link to (at the endpoints' costs), runs
 * one A* between them and removes both: one search, not one per endpoint pair. A link's data is its
 * RoadGraph edge id, or -1 - i for the query's i-th endpoint link (listeners of a given ngraph see
 * the two nodes come and go). ngraph.path quirks handled here:
 * an unreachable target comes back as the one-node path [target]; paths come target-first;
 * `blocked` gets the nodes in a different order per algorithm, so the edge is read from the link.
 */
export class NgraphSearch implements PathSearch {
  readonly name = 'ngraph';
  readonly ngraph: Graph<NgraphNodeData, number>;

  constructor(private readonly graph: RoadGraph, ngraph?: Graph<NgraphNodeData, number>) {
    this.ngraph = ngraph ?? toNgraph(graph);
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const ng = this.ngraph;
    const weight = g.edgeCost(query.metric);
    const blocked = query.blockedRoads;
    const penalty = query.penalty;
    if (query.schedule) throw new DetourError(ErrorCode.UNSUPPORTED_FEATURE, 'the ngraph engine has no time-dependent costs: route scheduled zones with the ch or astar engine');
    const { sources, targets } = query;
    const endpointCost = [...sources, ...targets].map((p) => p.cost);
    const linkCost = (data: number) => (data < 0 ? endpointCost[-1 - data] : penalty ? weight[data] + penalty.costPerMetre[penalty.roads[g.edgeRoad[data]]] * g.edgeDistance[data] : weight[data]);
    // Straight-line cost to the nearest target node: a lower bound of the cost to the target node
    // the path ends at (endpoint costs are >= 0), and consistent, as each term is.
    const scale = (query.metric === 'distance' ? 1 : 1 / g.maxSpeedMps) * (1 - 1e-9);
    const targetLat = targets.map((t) => g.nodeLatitude(t.node)), targetLon = targets.map((t) => g.nodeLongitude(t.node));
    const heuristic = (a: Node<NgraphNodeData>) => {
      if (a.id === SOURCE || a.id === TARGET) return 0;
      let h = Infinity;
      for (let j = 0; j < targetLat.length; j++) h = Math.min(h, haversineMetres(a.data.lat, a.data.lon, targetLat[j], targetLon[j]));
      return h * scale;
    };
    ng.addNode(SOURCE, { lat: 0, lon: 0 });
    ng.addNode(TARGET, { lat: 0, lon: 0 });
    try {
      sources.forEach((s, i) => ng.addLink(SOURCE, s.node, -1 - i));
      targets.forEach((t, j) => ng.addLink(t.node, TARGET, -1 - sources.length - j));
      const finder = ngraphPath.aStar<NgraphNodeData, number>(ng, {
        oriented: true,
        distance: (_a, _b, link) => linkCost(link.data),
        heuristic,
        blocked: blocked ? (_a, _b, link) => link.data >= 0 && blocked[g.edgeRoad[link.data]] !== 0 : undefined,
      });
      const nodes = finder.find(SOURCE, TARGET);
      if (nodes.length < 2) return null; // [] or [target]: unreachable
      nodes.reverse();
      // Parallel links: A* relaxed the cheapest usable one between two nodes.
      let source = -1, target = -1, cost = 0;
      const edges: number[] = [];
      for (let i = 0; i + 1 < nodes.length; i++) {
        let best = 0, bestCost = Infinity;
        for (const link of ng.getLinks(nodes[i].id) as Set<Link<number>>) {
          if (link.fromId !== nodes[i].id || link.toId !== nodes[i + 1].id) continue;
          if (link.data >= 0 && blocked?.[g.edgeRoad[link.data]]) continue;
          if (linkCost(link.data) < bestCost) (best = link.data), (bestCost = linkCost(link.data));
        }
        cost += bestCost;
        if (best >= 0) edges.push(best);
        else if (i === 0) source = -1 - best;
        else target = -1 - best - sources.length;
      }
      return { cost, source, target, edges };
    } finally {
      ng.removeNode(SOURCE);
      ng.removeNode(TARGET);
    }
  }

  /** Node-to-node cost with ngraph.path's nba (bidirectional), for benchmarks. */
  static nba(ngraph: Graph<NgraphNodeData, number>, graph: RoadGraph, metric: Metric) {
    const weight = graph.edgeCost(metric);
    const scale = metric === 'distance' ? 1 : 1 / graph.maxSpeedMps;
    return ngraphPath.nba<NgraphNodeData, number>(ngraph, {
      oriented: true,
      distance: (_a, _b, link) => weight[link.data],
      heuristic: (a, b) => haversineMetres(a.data.lat, a.data.lon, b.data.lat, b.data.lon) * scale,
    });
  }
}
