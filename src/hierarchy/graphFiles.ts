/** Graph files with their hierarchies, on disk: the graph layer's file format plus this layer's sections. */
import { loadGraphFile, saveGraphFile } from '../graph/graphFile.js';
import { detectFormat, importInput } from '../graph/openGraph.js';
import type { OsmImportOptions } from '../graph/importOsm.js';
import type { HierarchyGraph } from './ContractionHierarchy.js';
import { HIERARCHY_SECTIONS, withHierarchy } from './hierarchySections.js';

/**
 * Writes a graph file atomically, with the graph's hierarchy and overlay when it has them. A path
 * that cannot be written is a DetourError FILE_NOT_WRITABLE naming it.
 */
export function saveGraph(graph: HierarchyGraph, path: string): void {
  saveGraphFile(graph, path, HIERARCHY_SECTIONS.write(graph));
}

/**
 * Loads a graph file written by saveGraph (in chunks, into shared typed arrays), with the
 * hierarchy and overlay it holds. Missing, truncated or foreign files get a clear error.
 */
export function loadGraph(path: string): HierarchyGraph {
  const { graph, layer } = loadGraphFile(path, HIERARCHY_SECTIONS);
  return withHierarchy(graph, layer);
}

/**
 * Opens any supported input as a graph: a saved detour graph loads in milliseconds, with its
 * hierarchy; OSM and GeoJSON inputs are imported with the car profile.
 */
export async function openGraph(path: string, options: OsmImportOptions = {}): Promise<HierarchyGraph> {
  const format = detectFormat(path);
  return format === 'detour' ? loadGraph(path) : importInput(path, format, options);
}
