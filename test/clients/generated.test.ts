import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LifecycleOptions, LifecycleResult } from './lifecycles/lifecycle-types.ts';
import { startLiveApi, type LiveApi } from './live-api.ts';

// Issue 18 part 2: an integrator's first hour. Three widely used generators build a client from the
// document the server serves; each client and a lifecycle program written against it must pass
// `tsc --strict`, then the program runs against the live server. Everything runs offline. Each
// lifecycle imports the document's named types (Business, Document, … : issue 33) from its client.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const LIFECYCLES = path.join(import.meta.dirname, 'lifecycles');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

let live: LiveApi;
let work: string;
beforeAll(async () => {
  live = await startLiveApi();
  work = mkdtempSync(path.join(tmpdir(), 'pinkas-clients-'));
  // The generated code imports its runtime (openapi-fetch) and tsc needs @types/node: the repository's.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  writeFileSync(path.join(work, 'openapi.json'), JSON.stringify(await (await fetch(`${live.baseUrl}/v1/openapi.json`)).json()));
}, 60_000);
afterAll(async () => {
  await live?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A directory holding `lifecycle.ts` and the generated client, with a strict tsconfig of its own. */
function project(name: string, lifecycleFile: string): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(LIFECYCLES, lifecycleFile), path.join(dir, 'lifecycle.ts'));
  copyFileSync(path.join(LIFECYCLES, 'lifecycle-types.ts'), path.join(dir, 'lifecycle-types.ts'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
    }),
  );
  // ES modules, as in a new project.
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return dir;
}

async function typecheck(dir: string): Promise<string> {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  return run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).then(
    () => '',
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
}

async function runLifecycle(dir: string, name: string): Promise<LifecycleResult> {
  const { lifecycle } = (await import(path.join(dir, 'lifecycle.ts'))) as { lifecycle: (o: LifecycleOptions) => Promise<LifecycleResult> };
  // Retry-After says seconds; the render job runs every 100 ms here, so a short wait suffices.
  return lifecycle({ baseUrl: live.baseUrl, key: live.key, run: name, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 100))), maxPolls: 50 });
}

function expectLifecycle(result: LifecycleResult): void {
  expect(result.docNumber).toBeGreaterThan(0);
  expect(result.creditNote.docType).toBe(330);
  expect(Buffer.from(result.pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  expect(Buffer.from(result.zip.subarray(0, 2)).toString('latin1')).toBe('PK');
  // Page by page, each document exactly once (the test clock stands still: the order among
  // documents of the same instant is by id, so only the set is known here).
  expect([...result.listed].sort()).toEqual([result.creditNote.id, result.documentId].sort());
}

describe('clients generated from /v1/openapi.json', () => {
  it('openapi-typescript + openapi-fetch: strict types, then the whole lifecycle', async () => {
    const dir = project('openapi-fetch', 'openapi-fetch.ts');
    await run(
      process.execPath,
      [bin('openapi-typescript'), path.join(work, 'openapi.json'), '-o', path.join(dir, 'schema.ts'), '--root-types', '--root-types-no-schema-prefix'],
      { cwd: dir },
    );
    expect(await typecheck(dir)).toBe('');
    expectLifecycle(await runLifecycle(dir, 'openapi-fetch'));
  }, 60_000);

  it('@hey-api/openapi-ts with its fetch client: strict types, then the whole lifecycle', async () => {
    const dir = project('hey-api', 'hey-api.ts');
    await run(
      process.execPath,
      [bin('openapi-ts'), '-i', path.join(work, 'openapi.json'), '-o', path.join(dir, 'client'), '-c', '@hey-api/client-fetch', '-s', '--no-log-file'],
      { cwd: dir },
    );
    expect(await typecheck(dir)).toBe('');
    expectLifecycle(await runLifecycle(dir, 'hey-api'));
  }, 60_000);

  it('orval with its fetch client and a mutator for the base URL and key: strict types, then the whole lifecycle', async () => {
    const dir = project('orval', 'orval.ts');
    copyFileSync(path.join(LIFECYCLES, 'orval-fetch.ts'), path.join(dir, 'orval-fetch.ts'));
    writeFileSync(
      path.join(dir, 'orval.config.mjs'),
      `export default { pinkas: { input: ${JSON.stringify(path.join(work, 'openapi.json'))}, output: { target: './client/api.ts', client: 'fetch', ` +
        `override: { mutator: { path: './orval-fetch.ts', name: 'orvalFetch' } } } } };`,
    );
    await run(process.execPath, [bin('orval'), '--config', path.join(dir, 'orval.config.mjs')], { cwd: dir });
    expect(await typecheck(dir)).toBe('');
    expectLifecycle(await runLifecycle(dir, 'orval'));
  }, 60_000);
});
