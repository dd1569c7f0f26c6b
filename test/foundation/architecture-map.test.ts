/**
 * ARCHITECTURE.md stays the map (issue 34): it names every folder and file at the top of src/, and its layer order is
 * the one .dependency-cruiser.cjs enforces.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const map = readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
const cruiser = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as { LAYERS: string[][] };

describe('ARCHITECTURE.md', () => {
  it('lists every folder and top-level file of src/', () => {
    const entries = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).map((e) => (e.isDirectory() ? `\`${e.name}/\`` : `\`${e.name}\``));
    expect(entries.filter((entry) => !map.includes(`- ${entry}`) && !map.includes(`, ${entry}`) && !map.includes(`${entry} (`))).toEqual([]);
  });

  it('gives the layer order the dependency cruiser declares', () => {
    const line = map.slice(map.indexOf('platform → '), map.indexOf('\n\n', map.indexOf('platform → '))).replace(/\s+/g, ' ');
    const named = line.split(' → ').map((step) => step.replace(/ \(.*\)$/, '').replace(/`/g, ''));
    expect(named).toEqual(cruiser.LAYERS.map((layer) => (layer.length === 1 ? layer[0] : layer.includes('app.ts') ? 'app' : 'process')));
  });
});
