import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SLOW_FIRST } from '../helpers/slow-first-sequencer.ts';

it('the slow files the sequencer starts first exist (a renamed one would quietly start late)', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  expect(SLOW_FIRST.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
});
