import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { nodeEntry, type Entry } from '../helpers/entry-bundle.ts';

// The CLI and the server as a user runs them: separate processes, on the test's databases
// (the embedded cluster's lifecycle has its own tests in embedded-server.test.ts).
let env: TestEnv;
let dataDir: string;
let dbEnv: Record<string, string>;

beforeAll(async () => {
  env = await createTestEnv();
  dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-cli-'));
  dbEnv = { DATABASE_URL: env.urls.live, SANDBOX_DATABASE_URL: env.urls.sandbox };
});
afterAll(async () => {
  await env?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function run(script: Entry, args: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [...nodeEntry(script), ...args], {
    env: { ...process.env, PINKAS_ENV: 'test', LOG_LEVEL: 'silent', ...dbEnv, ...extraEnv },
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const cli = (...args: string[]) => run('src/cli/main.ts', args);
const json = (...args: string[]) => {
  const r = cli(...args, '--json');
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object, nothing else
  return JSON.parse(lines[0]);
};

describe('operator CLI', () => {
  it('creates an account and keys with --json output exactly as decisions.md describes', async () => {
    const account = json('accounts', 'create', '--name', 'Acme Ltd');
    expect(Object.keys(account).sort()).toEqual(['approvalStatus', 'id', 'name']);
    expect(account).toMatchObject({ id: expect.stringMatching(/^acct_/), name: 'Acme Ltd', approvalStatus: 'approved' });

    const key = json('keys', 'create', '--account', account.id, '--mode', 'test', '--label', 'ci');
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'mode', 'prefix', 'scopes']);
    expect(key).toMatchObject({
      key: expect.stringMatching(/^bk_test_[0-9A-Za-z]{32}$/),
      mode: 'test',
      scopes: ['businesses', 'documents', 'expenses', 'export'],
    });
    expect(key.key.startsWith(key.prefix)).toBe(true);

    const live = json('keys', 'create', '--account', account.id, '--mode', 'live', '--scopes', 'documents,export');
    expect(live).toMatchObject({ mode: 'live', scopes: ['documents', 'export'] });

    const refused = cli('keys', 'create', '--account', account.id, '--mode', 'live', '--scopes', 'ocr', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({ error: expect.stringContaining('ocr'), reason: 'forbidden' });

    const revoked = json('keys', 'revoke', key.id);
    expect(revoked).toMatchObject({ id: key.id, revokedAt: expect.any(String) });

    const plan = json('plans', 'create', '--key', 'basic', '--name', 'Basic', '--max-docs', '200');
    expect(plan.plan).toMatchObject({ key: 'basic', maxDocsPerMonth: 200, maxExpensesPerMonth: null });
    const audit = json('audit', 'verify', '--mode', 'test');
    expect(audit.ok).toBe(true);
  }, 600_000);

  it('explains bad usage on stdout as JSON and exits non-zero', () => {
    const r = cli('keys', 'create', '--mode', 'test', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: '--account is required', reason: 'validation' });
    const unknown = cli('frobnicate', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).reason).toBe('validation');
  }, 300_000);

  it('refuses an unknown command or flag by name, before opening any database', () => {
    const command = cli('acounts', 'list');
    expect(command.code).toBe(2);
    expect(command.stderr).toBe("error: unknown command 'acounts' (Did you mean accounts?)\n");
    const flag = cli('accounts', 'create', '--nmae', 'Acme', '--json');
    expect(flag.code).toBe(2);
    expect(JSON.parse(flag.stdout)).toEqual({ error: "unknown option '--nmae' (Did you mean --name?)", reason: 'validation' });
    const extra = cli('keys', 'revoke', 'key_1', 'key_2', '--json');
    expect(extra.code).toBe(2);
    expect(JSON.parse(extra.stdout).error).toContain('too many arguments');
    // The databases are not opened: a parse error needs no configuration at all.
    const noDatabase = run('src/cli/main.ts', ['keys', 'list', '--acount', 'x'], { DATABASE_URL: 'not a url' });
    expect(noDatabase.stderr).toContain("unknown option '--acount'");
  }, 300_000);
});

describe('processes', () => {
  it('a bad configuration value stops the server with a message naming it', () => {
    const r = run('src/main.ts', [], { PORT: 'eighty' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT');
  }, 300_000);
});
