import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { verifyAuditChains } from '../../src/platform/audit.ts';
import { issueFixture } from '../exports/fixture.ts';

let env: TestEnv;
let target: TestEnv;
let a: TestAccount;
let work: string;
beforeAll(async () => {
  env = await createTestEnv();
  target = await createTestEnv();
  a = await env.account();
  work = mkdtempSync(path.join(tmpdir(), 'pinkas-backup-test-'));
  chmodSync(work, 0o755); // the embedded cluster's user (under root) must reach its DATA_DIR
});
afterAll(async () => {
  await env?.close();
  await target?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every row of every backed-up table of the business, as jsonb text ordered by primary key; file bytes as sha256. */
async function snapshot(e: TestEnv, bid: string, tables: string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    const where = t === 'businesses' ? `t.id = '${bid}'` : t === 'audit_chain_heads' ? `t.chain = 'biz:${bid}'` : `t.business_id = '${bid}'`;
    const pk = await e.sql('sandbox', `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = '${t}'::regclass AND i.indisprimary`);
    const order = pk.map((r: any) => `t.${r.attname}`).join(', ');
    const content = t === 'files' ? `, encode(sha256(t.content), 'hex') AS content_sha` : '';
    out[t] = await e.sql('sandbox', `SELECT (to_jsonb(t) - 'content')::text AS row${content} FROM ${t} t WHERE ${where} ORDER BY ${order}`);
  }
  return out;
}

async function restore(e: TestEnv, file: string) {
  return commands['backups restore'].run(e.s, parseArgs(['backups', 'restore', '--file', file, '--mode', 'test', '--json']));
}

describe('backup and restore', () => {
  let bid: string;
  let backup: any;
  let zipPath: string;
  let expected: Record<string, unknown[]>;
  let manifest: any;
  beforeAll(async () => {
    const b = await env.business(a.test, { name: 'גיבוי בע"מ', taxId: TAX_IDS.company2 });
    bid = b.id;
    const party = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { kind: 'customer', name: 'לקוח שמור', taxId: TAX_IDS.person } });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    await issueFixture(env, a, bid);
    env.clock.advance(60_000);
    expect((await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from: '2026-03-01', to: '2026-03-31' } })).status).toBe(201);
    await env.sql(
      'sandbox',
      `INSERT INTO expenses(id, business_id, status, source, category_key, supplier_name, supplier_doc_type, supplier_doc_date,
                            amount_ex_vat, vat_amount, amount_inc_vat, deductible_vat, recorded_at, created_at, updated_at)
       VALUES ('exp_backup000001', '${bid}', 'recorded', 'manual', 'office', 'ספק', 'tax_invoice', '2026-02-01', 1000, 180, 1180, 180,
               '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z')`,
    );
    env.clock.advance(60_000);
    const tables = (await import('../../src/backups/catalog.ts')).loadOrder(
      await (await import('../../src/backups/catalog.ts')).businessTables(env.s.databases.sandbox.db),
      await (await import('../../src/backups/catalog.ts')).foreignKeys(env.s.databases.sandbox.db),
    ).order;
    expected = await snapshot(env, bid, tables);
    const r = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    backup = r.body;
    const f = await env.call('GET', `/v1/files/${backup.file.id}`, { key: a.test });
    expect(f.status).toBe(200);
    zipPath = path.join(work, 'backup.zip');
    writeFileSync(zipPath, f.raw);
    manifest = JSON.parse(Buffer.from(unzipSync(new Uint8Array(f.raw))['manifest.json']).toString('utf8'));
  });

  it('answers the backup and lists it', async () => {
    expect(backup.backup).toMatchObject({ id: expect.stringMatching(/^bak_/), fileId: backup.file.id });
    expect(backup.backup.summary.tables).toMatchObject({ businesses: 1, documents: 5, parties: 1, export_runs: 1, document_counters: 4, expenses: 1, audit_chain_heads: 1 });
    expect(backup.backup.summary.files).toBe(1); // the export zip
    const list = await env.call('GET', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(list.body.backups.map((x: any) => x.id)).toEqual([backup.backup.id]);
    expect(list.body.backups[0].file).toMatchObject({ id: backup.file.id, mime: 'application/zip' });
  });

  it('the manifest names every entry with its sha256; no table of the business is missing', async () => {
    const entries = unzipSync(new Uint8Array((await env.call('GET', `/v1/files/${backup.file.id}`, { key: a.test })).raw));
    for (const e of [...manifest.tables, ...manifest.files]) {
      expect(createHash('sha256').update(entries[e.path]).digest('hex')).toBe(e.sha256);
    }
    expect(manifest.tables.map((t: any) => t.name).sort()).toEqual(Object.keys(expected).sort());
    expect(manifest.tables.map((t: any) => t.name)).toEqual(expect.arrayContaining(['businesses', 'documents', 'audit_log', 'audit_chain_heads', 'files', 'export_runs']));
    // Load order: a table after the tables it references.
    const order = manifest.tables.map((t: any) => t.name);
    expect(order.indexOf('businesses')).toBeLessThan(order.indexOf('documents'));
    expect(order.indexOf('files')).toBeLessThan(order.indexOf('export_runs'));
  });

  it('restores into an empty database through the CLI command, every row identical', async () => {
    const result = await restore(target, zipPath);
    expect(result.json.businessId).toBe(bid);
    const got = await snapshot(target, bid, Object.keys(expected));
    for (const t of Object.keys(expected)) expect(got[t], t).toEqual(expected[t]);
    expect(Object.values(expected).reduce((n, rows) => n + rows.length, 0)).toBeGreaterThan(25);
    const chain = await verifyAuditChains(target.s.databases.sandbox.db, `biz:${bid}`);
    expect(chain.ok).toBe(true);
    expect(chain.rows).toBeGreaterThan(0);
  });

  it('the restored books are protected again (triggers are back on)', async () => {
    await expect(target.sql('sandbox', `UPDATE documents SET total_inc_vat = 1 WHERE business_id = '${bid}' AND status = 'issued'`)).rejects.toThrow();
    await expect(target.sql('sandbox', `DELETE FROM audit_log WHERE business_id = '${bid}'`)).rejects.toThrow();
    await expect(target.sql('sandbox', `UPDATE export_runs SET status = 'failed' WHERE business_id = '${bid}'`)).rejects.toThrow();
  });

  it('refuses a second restore of the same business, and a tampered or foreign file', async () => {
    await expect(restore(target, zipPath)).rejects.toMatchObject({ status: 409, reason: 'conflict' });
    const entries = unzipSync(new Uint8Array((await env.call('GET', `/v1/files/${backup.file.id}`, { key: a.test })).raw));
    const docs = manifest.tables.find((t: any) => t.name === 'documents').path;
    entries[docs] = new Uint8Array(Buffer.from(Buffer.from(entries[docs]).toString('utf8').replace('"doc_type": 305', '"doc_type": 320')));
    const tampered = path.join(work, 'tampered.zip');
    writeFileSync(tampered, zipSync(entries));
    await expect(restore(target, tampered)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/sha256/) });
    const notZip = path.join(work, 'not.zip');
    writeFileSync(notZip, 'hello');
    await expect(restore(target, notZip)).rejects.toMatchObject({ status: 400, reason: 'validation' });
  });

  it('a backup record is write-once', async () => {
    await expect(env.sql('sandbox', `UPDATE backups SET summary = '{}' WHERE id = '${backup.backup.id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `DELETE FROM backups WHERE id = '${backup.backup.id}'`)).rejects.toThrow();
  });

  it('a later backup does not contain the earlier backup zip', async () => {
    env.clock.advance(60_000);
    const r = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(r.status).toBe(201);
    expect(r.body.backup.summary.files).toBe(1);
  });

  it('the documented command line restores into a fresh data folder (its own embedded cluster)', async () => {
    const dataDir = path.join(work, 'cli-data');
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'backups', 'restore', '--file', zipPath, '--mode', 'test', '--json'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SANDBOX_DATABASE_URL: '', NODE_ENV: 'development' },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout.trim());
    expect(out.businessId).toBe(bid);
    expect(out.tables.documents).toBe(5);
  }, 150_000);
});
