/**
 * The server's and the CLI's entry points (and a test's own child) as one prebuilt bundle for the run's child processes. Through tsx a
 * process start costs ~2.3 s of CPU (every module resolved and loaded through the loader thread); the same code
 * bundled once by esbuild — the compiler tsx itself uses — starts in ~0.9 s, and the suite starts a few hundred.
 * The bundle keeps the sources' own locations for `import.meta.url`, so the migrations, the guides and the worker
 * threads' entries are the files beside the sources. The packages stay external (node_modules, unbundled) but
 * two: TypeBox and drizzle are plain ES modules in ~480 small files, which cost a start ~0.2 s of CPU to load one
 * by one (the others read files beside their own code, load native addons or start threads).
 * Tests of `npm start` itself still go through tsx (server-process.ts, `via: 'npm'`).
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRIES = { 'src/main.ts': 'main', 'src/cli/main.ts': 'cli', 'test/documents/issuer-child.ts': 'issuer-child' } as const;
export type Entry = keyof typeof ENTRIES;

/** Bundled into the entries; every other package is loaded from node_modules. */
const INLINED_PACKAGES = new Set(['typebox', 'drizzle-orm']);

function externalPackages(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !INLINED_PACKAGES.has(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** Set by the global setup for every worker: the folder holding the bundle. */
const BUNDLE_DIR_VARIABLE = 'PINKAS_TEST_BUNDLE_DIR';

/** `import.meta.url` written as the source file's own URL, so that paths next to a source resolve as under tsx. */
const sourceUrls: esbuild.Plugin = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** Builds the bundle into `<runDir>/bundle` (packages resolve through a node_modules link) and tells the workers. */
export async function buildEntryBundle(runDir: string): Promise<void> {
  const outdir = path.join(runDir, 'bundle');
  mkdirSync(outdir, { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(outdir, 'node_modules'));
  await esbuild.build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([source, name]) => [name, path.join(ROOT, source)])),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: externalPackages(),
    outdir,
    plugins: [sourceUrls],
    logLevel: 'error',
  });
  process.env[BUNDLE_DIR_VARIABLE] = outdir;
}

/** Node's arguments that run `entry`: the run's bundle when there is one, the source through tsx otherwise. */
export function nodeEntry(entry: Entry): string[] {
  const dir = process.env[BUNDLE_DIR_VARIABLE];
  return dir ? [path.join(dir, `${ENTRIES[entry]}.js`)] : ['--import', 'tsx', path.join(ROOT, entry)];
}
