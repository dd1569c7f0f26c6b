/**
 * The SDK as an installable tarball (`npm run sdk:pack` at the repository root). `npm pack` runs the
 * package's `prepack`, a clean tsc build (tsconfig.build.json), and writes the tarball into dist/sdk/
 * of the repository, or into the folder given as the first argument. dist/ is git-ignored: the
 * tarball is never committed. Prints the tarball's path.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const SDK = path.resolve(import.meta.dirname, '..');
const DEFAULT_DESTINATION = path.resolve(SDK, '../../dist/sdk');

/** Packs the SDK into `destination` and answers the tarball's path. */
export async function packSdk(destination = DEFAULT_DESTINATION): Promise<string> {
  mkdirSync(destination, { recursive: true });
  // --json: stdout is the pack report alone (the build's output goes to stderr).
  const { stdout } = await promisify(execFile)('npm', ['pack', SDK, '--pack-destination', destination, '--json'], { maxBuffer: 16 * 1024 * 1024 });
  const [{ filename }] = JSON.parse(stdout) as { filename: string }[];
  return path.join(destination, filename);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  console.log(await packSdk(process.argv[2] ? path.resolve(process.argv[2]) : undefined));
}
