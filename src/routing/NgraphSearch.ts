import { DetourError, ErrorCode } from '../errors.js';
import type { Graph, Link } from 'ngraph.graph';
import ngraphPath from 'ngraph.path';
import { haversineMetres } from '../geo/haversine.js';
import { toNgraph, type NgraphNodeData } from '../graph/ngraphBridge.js';
import type { Metric, RoadGraph } from '../graph/RoadGraph.js';
import type { PathQuery, PathResult, PathSearch } from './PathSearch.js';

/**
 * The same search on ngraph.path's A* over an ngraph.graph built from the RoadGraph: a second,
 * independent engine behind the PathSearch interface. One ngraph query runs per (source, target)
 * endpoint pair. ngraph.path quirks handled here: an unreachable target comes back as the one-node
 * path [target]; paths come target-first; `blocked` gets the nodes in a different order per
 * algorithm, so the edge is read from the link itself.
 */
export class NgraphSearch implements PathSearch {
  readonly name = 'ngraph';
  readonly ngraph: Graph<NgraphNodeData, number>;

  constructor(private readonly graph: RoadGraph, ngraph?: Graph<NgraphNodeData, number>) {
    this.ngraph = ngraph ?? toNgraph(graph);
  }

  find(query: PathQuery): PathResult | null {
    const g = this.graph;
    const weight = g.edgeCost(query.metric);
    const blocked = query.blockedRoads;
    const penalty = query.penalty;
    if (query.schedule) throw new DetourError(ErrorCode.UNSUPPORTED_FEATURE, 'the ngraph engine has no time-dependent costs: route scheduled zones with the ch or astar engine');
    const edgeCost = (e: number) => (penalty ? weight[e] + penalty.costPerMetre[penalty.roads[g.edgeRoad[e]]] * g.edgeDistance[e] : weight[e]);
    const scale = query.metric === 'distance' ? 1 : 1 / g.maxSpeedMps;
    const finder = ngraphPath.aStar<NgraphNodeData, number>(this.ngraph, {
      oriented: true,
      distance: (_a, _b, link) => edgeCost(link.data),
      heuristic: (a, b) => haversineMetres(a.data.lat, a.data.lon, b.data.lat, b.data.lon) * scale * (1 - 1e-9),
      blocked: blocked ? (_a, _b, link) => blocked[g.edgeRoad[link.data]] !== 0 : undefined,
    });
    let best: PathResult | null = null;
    query.sources.forEach((s, si) => {
      query.targets.forEach((t, ti) => {
        const path = s.node === t.node ? { cost: 0, edges: [] } : this.nodePath(finder, s.node, t.node, edgeCost, blocked);
        if (!path) return;
        const cost = s.cost + path.cost + t.cost;
        if (!best || cost < best.cost) best = { cost, source: si, target: ti, edges: path.edges };
      });
    });
    return best;
  }

  /** One ngraph.path query between nodes; the cost and edges are recovered from the node sequence. */
  private nodePath(
    finder: { find(from: number, to: number): Array<{ id: string | number }> },
    from: number,
    to: number,
    weight: (edge: number) => number,
    blocked?: Uint8Array,
  ): { cost: number; edges: number[] } | null {
    const nodes = finder.find(from, to);
    if (nodes.length < 2) return null; // [] or [target]: unreachable
    nodes.reverse();
    const edges: number[] = [];
    let cost = 0;
    for (let i = 0; i + 1 < nodes.length; i++) {
      // Parallel roads: A* relaxed the cheapest usable link between the two nodes.
      let bestEdge = -1;
      const links = this.ngraph.getLinks(nodes[i].id) as Set<Link<number>>;
      for (const link of links) {
        if (link.fromId !== nodes[i].id || link.toId !== nodes[i + 1].id) continue;
        if (blocked && blocked[this.graph.edgeRoad[link.data]]) continue;
        if (bestEdge < 0 || weight(link.data) < weight(bestEdge)) bestEdge = link.data;
      }
      edges.push(bestEdge);
      cost += weight(bestEdge);
    }
    return { cost, edges };
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
