// The README's command blocks work when pasted (issue 33): each `sh` block after "Set up" runs as
// written, in order, in bash, from a fresh folder, against a server started the way the blocks start
// it. Only the host changes (the test's server listens on a free port, not 3000).
import { readFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, killServer, postmasterPid, ROOT, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

/** The `sh` blocks of the README, in order. */
const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

/** A block that starts the server: its environment assignments, or null for a block of commands. */
function serverStart(block: string): Record<string, string> | null {
  const line = block.trim();
  const m = /^((?:[A-Z_]+=\S+\s+)*)npm start$/.exec(line);
  if (!m) return null;
  return Object.fromEntries(
    m[1]
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split('=') as [string, string]),
  );
}

// curl fails on an HTTP error (keeping the body for the message) unless the block asks for -f itself.
const PRELUDE = `set -euo pipefail
curl() { case " $* " in *" -sf "*|*" -f "*) command curl "$@";; *) command curl --fail-with-body "$@";; esac; }
`;

describe('README', () => {
  // Traversable by the unprivileged user the embedded PostgreSQL runs as when the tests run as root.
  const folder = tempDataDir('pinkas-readme-');
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await killServer(server);
    // The embedded cluster runs in a process group of its own: a killed server leaves it running.
    const pm = postmasterPid(path.join(folder, 'data'));
    if (pm && alive(pm)) process.kill(pm, 'SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>) => {
    if (server) await killServer(server);
    server = await startServer(path.join(folder, 'data'), { env });
  };

  it('has no link outside the repository', () => {
    expect(README).not.toMatch(/\.\.\/shared|\]\(\.\.\//);
  });

  it('runs every command block as written, in order', { timeout: 240_000 }, async () => {
    const [setup, ...rest] = blocks;
    expect(setup).toContain('npm install && npm start');
    await start({});
    const outputs: string[] = [];
    for (const block of rest) {
      const env = serverStart(block);
      if (env) {
        await start(env);
        continue;
      }
      // The blocks are one session, as pasted in one terminal: what a block sets (KEY) reaches the next.
      const names = [...block.matchAll(/^([A-Z]+)=/gm)].map((m) => m[1]);
      const script = `${PRELUDE}[ -f .vars ] && source .vars\n${block.replaceAll('localhost:3000', server!.base.replace('http://', ''))}
declare -p ${names.join(' ')} >> .vars 2>/dev/null || true\n`;
      const r = await run('bash', ['-c', script], { cwd: folder, maxBuffer: 16 << 20 }).catch((err: { stdout: string; stderr: string }) => {
        throw new Error(`a README block failed:\n${block}\n--- stdout\n${err.stdout}\n--- stderr\n${err.stderr}`);
      });
      outputs.push(r.stdout);
    }
    const all = outputs.join('\n');
    expect(readFileSync(path.join(folder, 'origin.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    expect(all).toMatch(/"docNumber":1\b/);
    expect(all).toMatch(/"url":"http/);
    expect(all).toMatch(/"docType":330/);
    expect(all).toMatch(/"exportRun":\{[^}]*"status":"completed"/);
  });
});
