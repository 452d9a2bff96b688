import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCountry, buildGrid } from '../bench/scaleGraphs.js';
import { replaceScaleSection, scaleSection } from '../bench/resultsSection.js';
import { stronglyConnectedComponents } from '../src/graph/components.js';
import { ARRAY_KEYS } from '../src/graph/RoadGraph.js';
import { HIGHWAY_CLASSES } from '../src/index.js';

describe('scale bench graphs', () => {
  test('the synthetic country is reproducible from its seed, one connected network with motorways and trunks', async () => {
    const size = { key: 'test', kind: 'country' as const, nodes: 60_000, seed: 3 };
    const a = await buildCountry(size), b = await buildCountry(size);
    for (const key of ARRAY_KEYS) assert.deepEqual(a[key], b[key], key);
    assert.ok(a.nodeCount >= 60_000 && a.nodeCount < 90_000, `${a.nodeCount} nodes`);
    const { size: sizes } = stronglyConnectedComponents(a);
    const largest = Math.max(...sizes);
    assert.ok(largest > 0.9 * a.nodeCount, `largest strongly connected component ${largest} of ${a.nodeCount}`);
    const classes = new Set(a.roadClass);
    assert.ok(classes.has(HIGHWAY_CLASSES.indexOf('motorway')) && classes.has(HIGHWAY_CLASSES.indexOf('trunk')));
  });

  test('the uniform grid: N x N nodes 80 m apart, about 10 % of links missing, three classes', () => {
    const g = buildGrid({ key: 'test', kind: 'grid', nodes: 10_000, seed: 9 });
    const links = 2 * 100 * 99;
    assert.ok(g.nodeCount <= 10_000 && g.nodeCount > 9_000, `${g.nodeCount} nodes`);
    // Each link is one road unless degree-2 chains were joined; edges count both directions.
    let metres = 0;
    for (let r = 0; r < g.roadCount; r++) metres += g.roadMetres(r);
    const kept = metres / 80;
    assert.ok(kept > 0.85 * links && kept < 0.95 * links, `${kept.toFixed(0)} of ${links} links kept`);
    assert.equal(new Set(g.roadClass).size, 3);
  });

  test('the scale section of RESULTS.md is replaced in place and kept by the quick bench', () => {
    const file = '# r\n\n## Routing\n\nA\n\n## Scale: x\n\nold\n\n## Later\n\nB\n';
    const replaced = replaceScaleSection(file, '## Scale: x\n\nnew\n');
    assert.equal(replaced, '# r\n\n## Routing\n\nA\n\n## Scale: x\n\nnew\n\n## Later\n\nB\n');
    assert.equal(scaleSection(replaced), '## Scale: x\n\nnew\n\n');
    assert.equal(replaceScaleSection('# r\n', '## Scale\n\ns\n'), '# r\n\n## Scale\n\ns\n');
    assert.equal(scaleSection('# r\n## Routing\n'), '');
  });
});

describe('scale section parts', () => {
  test('a run of some sizes replaces their parts and keeps the others, in size order', async () => {
    const { mergeScaleParts, replaceScaleSection, sizeMarker } = await import('../bench/resultsSection.js');
    const first = replaceScaleSection('# r\n\n## Routing\n\nA\n', mergeScaleParts('', '## Scale\n\nintro', new Map([['5m', '### 5m\n\nold 5m']]), ['1m', '5m']));
    const second = replaceScaleSection(first, mergeScaleParts(first, '## Scale\n\nintro 2', new Map([['1m', '### 1m\n\nnew 1m']]), ['1m', '5m']));
    assert.equal(second, `# r\n\n## Routing\n\nA\n\n## Scale\n\nintro 2\n\n${sizeMarker('1m')}\n### 1m\n\nnew 1m\n\n${sizeMarker('5m')}\n### 5m\n\nold 5m\n`);
  });
});
