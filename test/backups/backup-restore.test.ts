import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash, createHmac } from 'node:crypto';
import { unzipSync, zipSync } from 'fflate';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { verifyBooks as verifyAuditChains } from '../../src/documents/audit-check.ts';
import { issueDoc, issueFixture } from '../exports/fixture.ts';
import { renderRunner } from '../prints/helpers.ts';
import { sealKeyId } from '../../src/backups/seal.ts';
import { cli, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';

/** The seal key of the install that writes the backups here (read where a backup is written). */
const SEAL_KEY = 'a'.repeat(16) + createHash('sha256').update('backup test seal key').digest('hex');
process.env.BACKUP_SEAL_KEY = SEAL_KEY;

let env: TestEnv;
let target: TestEnv;
let a: TestAccount;
let targetAccount: TestAccount;
let work: string;
beforeAll(async () => {
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } }); // the webhook endpoint below points at a loopback address
  target = await createTestEnv();
  a = await env.account();
  targetAccount = await target.account({ name: 'restored here' });
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
    const pk = await e.sql(
      'sandbox',
      `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = '${t}'::regclass AND i.indisprimary`,
    );
    const order = pk.map((r: any) => `t.${r.attname}`).join(', ');
    const content = t === 'files' ? `, encode(sha256(t.content), 'hex') AS content_sha` : '';
    out[t] = await e.sql('sandbox', `SELECT (to_jsonb(t) - 'content')::text AS row${content} FROM ${t} t WHERE ${where} ORDER BY ${order}`);
  }
  return out;
}

async function restore(e: TestEnv, file: string, ...extra: string[]) {
  return commands['backups restore'].run(
    e.s,
    parseArgs(['backups', 'restore', '--file', file, '--mode', 'test', '--json', ...(e === target ? ['--account', targetAccount.id] : []), ...extra]),
  );
}

/** The backup's entries, changed by `change`, zipped again. */
function rezip(raw: Uint8Array, name: string, change: (entries: Record<string, Uint8Array>) => void): string {
  const entries = unzipSync(raw);
  change(entries);
  const file = path.join(work, name);
  writeFileSync(file, zipSync(entries));
  return file;
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const bytes = (t: string) => new Uint8Array(Buffer.from(t, 'utf8'));

describe('backup and restore', () => {
  let bid: string;
  let backup: any;
  let zipPath: string;
  let expected: Record<string, unknown[]>;
  let manifest: any;
  let raw: Uint8Array;
  let webhookId: string;
  beforeAll(async () => {
    const b = await env.business(a.test, { name: 'גיבוי בע"מ', taxId: TAX_IDS.company2 });
    bid = b.id;
    const party = await env.call('POST', `/v1/businesses/${bid}/parties`, {
      key: a.test,
      body: { kind: 'customer', name: 'לקוח שמור', taxId: TAX_IDS.person },
    });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    await issueFixture(env, a, bid);
    // An order and a delivery note converted from it (issue 30): the quantities it took (document_sources) are backed up too.
    const order = await issueDoc(env, a.test, bid, {
      docType: 100,
      party: { name: 'לקוח' },
      lines: [{ description: 'x', quantity: 3, unitPriceExVat: 1_000 }],
    });
    const note = await env.call('POST', `/v1/businesses/${bid}/documents/${order.id}/convert`, {
      key: a.test,
      body: { docType: 200, lines: [{ index: 0, quantity: 2 }] },
    });
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect((await env.call('POST', `/v1/businesses/${bid}/documents/${note.body.document.id}/issue`, { key: a.test })).status).toBe(201);
    expect(await renderRunner(env).runDue('sandbox')).toBe(7); // origin and copy PDFs of the seven documents
    const hook = await env.call('POST', '/v1/webhooks', {
      key: a.test,
      body: { url: 'https://127.0.0.1:9/pinkas', businessId: bid, events: ['document.issued'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    webhookId = hook.body.webhook.id;
    env.clock.advance(60_000);
    expect((await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from: '2026-03-01', to: '2026-03-31' } })).status).toBe(
      201,
    );
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
    raw = new Uint8Array(f.raw);
    manifest = JSON.parse(Buffer.from(unzipSync(new Uint8Array(f.raw))['manifest.json']).toString('utf8'));
  });

  it('answers the backup and lists it', async () => {
    expect(backup.backup).toMatchObject({ id: expect.stringMatching(/^bak_/), fileId: backup.file.id });
    expect(backup.backup.summary.tables).toMatchObject({
      businesses: 1,
      documents: 7, // the fixture's five, an order and its delivery note
      document_sources: 1,
      parties: 1,
      export_runs: 1,
      document_counters: 6,
      expenses: 1,
      audit_chain_heads: 1,
    });
    expect(backup.backup.summary.files).toBe(15); // the export zip, origin and copy PDFs of the seven documents
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
    expect(manifest.tables.map((t: any) => t.name)).toEqual(
      expect.arrayContaining(['businesses', 'documents', 'audit_log', 'audit_chain_heads', 'files', 'export_runs']),
    );
    // Load order: a table after the tables it references.
    const order = manifest.tables.map((t: any) => t.name);
    expect(order.indexOf('businesses')).toBeLessThan(order.indexOf('documents'));
    expect(order.indexOf('files')).toBeLessThan(order.indexOf('export_runs'));
  });

  it('restores into an empty database through the CLI command, every row identical (the business given to an account of the target)', async () => {
    const result = await restore(target, zipPath);
    expect(result.json).toMatchObject({ businessId: bid, accountId: targetAccount.id, sealed: true });
    const got = await snapshot(target, bid, Object.keys(expected));
    // The owner changes to the target's account (--account); audit rows keep the account that acted (they are hashed history).
    const owned = (t: string, rows: any[]) =>
      rows.map((r) => {
        const row = JSON.parse(r.row);
        if (t !== 'audit_log' && 'account_id' in row) {
          expect(row.account_id, t).toBe(t === 'businesses' || t === 'webhook_endpoints' ? a.id : row.account_id);
          row.account_id = row.account_id === a.id ? targetAccount.id : row.account_id;
        }
        return { ...r, row };
      });
    const parsed = (rows: any[]) => rows.map((r) => ({ ...r, row: JSON.parse(r.row) }));
    for (const t of Object.keys(expected)) expect(parsed(got[t]), t).toEqual(owned(t, expected[t]));
    expect(expected.webhook_endpoints.length).toBe(1);
    expect(Object.values(expected).reduce((n, rows) => n + rows.length, 0)).toBeGreaterThan(25);
    const hooks = await target.call('GET', '/v1/webhooks', { key: targetAccount.test });
    expect(hooks.body.webhooks.map((w: any) => [w.id, w.businessId])).toEqual([[webhookId, bid]]);
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
    const docs = manifest.tables.find((t: any) => t.name === 'documents').path;
    const tampered = rezip(raw, 'tampered.zip', (e) => (e[docs] = bytes(text(e[docs]).replace('"doc_type": 305', '"doc_type": 320'))));
    await expect(restore(target, tampered)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/sha256/) });
    const notZip = path.join(work, 'not.zip');
    writeFileSync(notZip, 'hello');
    await expect(restore(target, notZip)).rejects.toMatchObject({ status: 400, reason: 'validation' });
  });

  describe('the seal', () => {
    const fresh = async () => {
      const e = await createTestEnv();
      const acc = await e.account();
      const run = (file: string, ...extra: string[]) =>
        commands['backups restore'].run(e.s, parseArgs(['backups', 'restore', '--file', file, '--mode', 'test', '--account', acc.id, '--json', ...extra]));
      return { e, run };
    };
    let t: Awaited<ReturnType<typeof fresh>>;
    beforeAll(async () => {
      t = await fresh();
    });
    afterAll(async () => t?.e.close());
    const refused = async (file: string, message: RegExp, ...extra: string[]) => {
      await expect(t.run(file, ...extra)).rejects.toMatchObject({ status: 400, reason: 'validation', message: expect.stringMatching(message) });
      // Nothing was written.
      expect(await t.e.sql('sandbox', `SELECT id FROM businesses`)).toEqual([]);
      expect(await t.e.sql('sandbox', `SELECT id FROM documents`)).toEqual([]);
    };

    it('seals manifest.json with HMAC-SHA256 under the key, and names the key in the summary', () => {
      const entries = unzipSync(raw);
      const seal = JSON.parse(text(entries['manifest.seal.json']));
      expect(manifest.format).toBe('pinkas-backup/2');
      expect(seal).toEqual({
        alg: 'HMAC-SHA256',
        keyId: backup.backup.summary.sealKeyId,
        mac: createHmac('sha256', SEAL_KEY).update(entries['manifest.json']).digest('hex'),
      });
      expect(Object.keys(entries).sort()).toEqual(
        ['manifest.json', 'manifest.seal.json', ...manifest.tables.map((x: any) => x.path), ...new Set(manifest.files.map((x: any) => x.path))].sort(),
      );
    });

    it('refuses a changed byte in any entry', async () => {
      for (const name of Object.keys(unzipSync(raw)).filter((n) => n !== 'manifest.seal.json')) {
        const file = rezip(raw, 'byte.zip', (e) => {
          if (e[name].length === 0) {
            e[name] = bytes('\n'); // an empty table: one byte more
            return;
          }
          const b = new Uint8Array(e[name]);
          b[Math.floor(b.length / 2)] ^= 1;
          e[name] = b;
        });
        await refused(file, name === 'manifest.json' ? /does not match its seal|not JSON/ : /does not match its sha256/);
      }
    });

    it('refuses a changed manifest (even with the sha256 of a changed entry written into it), a removed seal, a forged seal', async () => {
      const docs = manifest.tables.find((x: any) => x.name === 'documents');
      const forged = rezip(raw, 'forged.zip', (e) => {
        e[docs.path] = bytes(text(e[docs.path]).replace('"doc_type": 305', '"doc_type": 320'));
        const m = JSON.parse(text(e['manifest.json']));
        m.tables.find((x: any) => x.name === 'documents').sha256 = createHash('sha256').update(e[docs.path]).digest('hex');
        e['manifest.json'] = bytes(JSON.stringify(m, null, 2));
      });
      await refused(forged, /manifest\.json does not match its seal: the backup was altered/);
      await refused(
        rezip(raw, 'noseal.zip', (e) => delete e['manifest.seal.json']),
        /has no manifest\.seal\.json/,
      );
      const resealed = rezip(raw, 'reseal.zip', (e) => {
        const s = JSON.parse(text(e['manifest.seal.json']));
        s.mac = createHmac('sha256', 'another key, not the install one, 32+ chars').update(e['manifest.json']).digest('hex');
        e['manifest.seal.json'] = bytes(JSON.stringify(s));
      });
      await refused(resealed, /does not match its seal/);
    });

    it('refuses an added or a missing entry', async () => {
      await refused(
        rezip(raw, 'added.zip', (e) => (e['tables/extra.jsonl'] = bytes('{}\n'))),
        /tables\/extra\.jsonl is not listed in the manifest/,
      );
      const f = manifest.files[0].path;
      await refused(
        rezip(raw, 'missing.zip', (e) => delete e[f]),
        new RegExp(`${f} is listed in the manifest but missing`),
      );
      await refused(
        rezip(raw, 'missing-table.zip', (e) => delete e['tables/documents.jsonl']),
        /tables\/documents\.jsonl is listed in the manifest but missing/,
      );
    });

    it('refuses a truncated zip', async () => {
      for (const cut of [raw.length - 1, raw.length - 100, Math.floor(raw.length / 2), 10]) {
        const file = path.join(work, 'cut.zip');
        writeFileSync(file, raw.subarray(0, cut));
        await refused(file, /is not a whole zip archive \(truncated or damaged/);
      }
    });

    it('refuses another key, and no key at all, naming --seal-key', async () => {
      await refused(
        zipPath,
        /sealed with another key \(key id [0-9a-f]{16}; the key from --seal-key has id [0-9a-f]{16}\).*--seal-key/,
        '--seal-key',
        'x'.repeat(40),
      );
      const saved = process.env.BACKUP_SEAL_KEY;
      const savedDir = t.e.s.config.dataDir;
      delete process.env.BACKUP_SEAL_KEY;
      // A DATA_DIR with no key file of its own (other test files may have generated one in the shared test DATA_DIR).
      (t.e.s.config as { dataDir: string }).dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-nokey-'));
      try {
        await expect(t.run(zipPath)).rejects.toMatchObject({ status: 503, reason: 'unconfigured', message: expect.stringMatching(/no seal key.*--seal-key/) });
      } finally {
        process.env.BACKUP_SEAL_KEY = saved;
        rmSync(t.e.s.config.dataDir, { recursive: true, force: true });
        (t.e.s.config as { dataDir: string }).dataDir = savedDir;
      }
      expect(await t.e.sql('sandbox', `SELECT id FROM businesses`)).toEqual([]);
    });

    it('an old unsealed backup (pinkas-backup/1) restores only with --allow-unsealed', async () => {
      const old = rezip(raw, 'old.zip', (e) => {
        delete e['manifest.seal.json'];
        const m = JSON.parse(text(e['manifest.json']));
        m.format = 'pinkas-backup/1';
        e['manifest.json'] = bytes(JSON.stringify(m, null, 2));
      });
      await refused(old, /unsealed backup \(format pinkas-backup\/1.*--allow-unsealed/);
      // Its sha256 list is still checked.
      const oldTampered = rezip(
        new Uint8Array(readFileSync(old)),
        'old-tampered.zip',
        (e) => (e['tables/parties.jsonl'] = bytes(text(e['tables/parties.jsonl']) + ' ')),
      );
      await refused(oldTampered, /does not match its sha256/, '--allow-unsealed');
      const r = await t.run(old, '--allow-unsealed');
      expect(r.json).toMatchObject({ businessId: bid, sealed: false });
      expect(r.text).toContain('UNSEALED');
    });
  });

  it('production without BACKUP_SEAL_KEY refuses to write a backup: 503 unconfigured naming the variable, after the ownership check', async () => {
    const prod = await createTestEnv({ env: { PINKAS_ENV: 'production', OPENFRMT_MAKER_TAX_ID: '123456782' } });
    const saved = process.env.BACKUP_SEAL_KEY;
    try {
      const acc = await prod.account();
      const other = await prod.account();
      const b = await prod.business(acc.live);
      delete process.env.BACKUP_SEAL_KEY;
      expect((await prod.call('POST', `/v1/businesses/${b.id}/backups`, { key: other.live })).status).toBe(404);
      const r = await prod.call('POST', `/v1/businesses/${b.id}/backups`, { key: acc.live });
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ reason: 'unconfigured', error: expect.stringContaining('BACKUP_SEAL_KEY') });
      expect(await prod.sql('live', `SELECT id FROM backups`)).toEqual([]);
      process.env.BACKUP_SEAL_KEY = 'short';
      const bad = await prod.call('POST', `/v1/businesses/${b.id}/backups`, { key: acc.live });
      expect(bad.status).toBe(503);
      expect(bad.body.error).toMatch(/BACKUP_SEAL_KEY must be at least 32 characters/);
      process.env.BACKUP_SEAL_KEY = saved;
      expect((await prod.call('POST', `/v1/businesses/${b.id}/backups`, { key: acc.live })).status).toBe(201);
    } finally {
      process.env.BACKUP_SEAL_KEY = saved;
      await prod.close();
    }
  });

  it('a backup record is write-once', async () => {
    await expect(env.sql('sandbox', `UPDATE backups SET summary = '{}' WHERE id = '${backup.backup.id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `DELETE FROM backups WHERE id = '${backup.backup.id}'`)).rejects.toThrow();
  });

  it('a later backup does not contain the earlier backup zip', async () => {
    env.clock.advance(60_000);
    const r = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(r.status).toBe(201);
    expect(r.body.backup.summary.files).toBe(15); // as the first one: its zip is not among them
  });

  it('the documented command line restores into a fresh data folder (its own embedded cluster), and that install serves the books', async () => {
    // Another machine: its own DATA_DIR, no BACKUP_SEAL_KEY; the operator passes the key of the install that made the backup.
    const dataDir = tempDataDir('pinkas-restore-');
    const saved = process.env.BACKUP_SEAL_KEY;
    delete process.env.BACKUP_SEAL_KEY;
    let server: ServerProcess | undefined;
    try {
      const noKey = cli(dataDir, 'backups', 'restore', '--file', zipPath, '--mode', 'test');
      expect(noKey.code, noKey.stderr).toBe(1);
      expect(noKey.json).toMatchObject({ reason: 'unconfigured', error: expect.stringMatching(/no seal key.*--seal-key/) });
      const docs = manifest.tables.find((t: any) => t.name === 'documents').path;
      const tampered = rezip(raw, 'cli-tampered.zip', (e) => (e[docs] = bytes(text(e[docs]).replace('"doc_type": 305', '"doc_type": 320'))));
      const bad = cli(dataDir, 'backups', 'restore', '--file', tampered, '--mode', 'test', '--seal-key', SEAL_KEY);
      expect(bad.code, bad.stderr).toBe(1);
      expect(bad.json).toEqual({ error: expect.stringMatching(/tables\/documents\.jsonl does not match its sha256/), reason: 'validation' });
      // The backup's account is not on this install: the operator creates one and gives it the business.
      const noAccount = cli(dataDir, 'backups', 'restore', '--file', zipPath, '--mode', 'test', '--seal-key', SEAL_KEY);
      expect(noAccount.code, noAccount.stderr).toBe(1);
      expect(noAccount.json).toMatchObject({ reason: 'validation', error: expect.stringContaining(`account ${a.id}, which does not exist here`) });
      const account = cli(dataDir, 'accounts', 'create', '--name', 'Restored books');
      expect(account.code, account.stderr).toBe(0);
      const keyFile = path.join(work, 'seal.key');
      writeFileSync(keyFile, SEAL_KEY + '\n', { mode: 0o600 });
      const restored = cli(dataDir, 'backups', 'restore', '--file', zipPath, '--mode', 'test', '--seal-key-file', keyFile, '--account', account.json.id);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.json).toMatchObject({ businessId: bid, accountId: account.json.id, sealed: true });
      expect(restored.json.tables.documents).toBe(7);
      const key = cli(dataDir, 'keys', 'create', '--account', account.json.id, '--mode', 'test');
      expect(key.code, key.stderr).toBe(0);

      server = await startServer(dataDir, { env: { BACKUP_SEAL_KEY: '' } });
      const api = async (method: string, url: string, body?: unknown) => {
        const r = await fetch(server!.base + url, {
          method,
          headers: { 'x-api-key': key.json.key, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        const type = r.headers.get('content-type') ?? '';
        return { status: r.status, type, body: type.includes('json') ? ((await r.json()) as any) : Buffer.from(await r.arrayBuffer()) };
      };
      const list = await api('GET', `/v1/businesses/${bid}/documents`);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const numbers = list.body.documents.map((d: any) => [d.docType, d.docNumber]).sort();
      expect(numbers).toEqual([
        [100, 1],
        [200, 1],
        [305, 1],
        [320, 1],
        [330, 1],
        [400, 1],
        [400, 2],
      ]);
      // The PDFs download, byte for byte as backed up.
      for (const d of list.body.documents) {
        for (const fileId of [d.files.origin, d.files.copy]) {
          const f = await api('GET', `/v1/files/${fileId}`);
          expect(f.status).toBe(200);
          expect(f.type).toBe('application/pdf');
          const listed = manifest.files.find((x: any) => x.id === fileId);
          expect(createHash('sha256').update(f.body).digest('hex')).toBe(listed.sha256);
        }
      }
      // The series continues.
      const draft = await api('POST', `/v1/businesses/${bid}/documents`, {
        docType: 305,
        party: { name: 'לקוח חדש', taxId: TAX_IDS.person },
        lines: [{ description: 'אחרי השחזור', quantity: 1, unitPriceExVat: 10_000 }],
      });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      const issued = await api('POST', `/v1/businesses/${bid}/documents/${draft.body.document.id}/issue`);
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
      expect(issued.body.document.docNumber).toBe(2);
      const hooks = await api('GET', '/v1/webhooks');
      expect(hooks.body.webhooks.map((w: any) => [w.id, w.businessId, w.url])).toEqual([[webhookId, bid, 'https://127.0.0.1:9/pinkas']]);
      // Without BACKUP_SEAL_KEY, this (development) install seals with a key generated once into its DATA_DIR, mode 0600.
      const again = await api('POST', `/v1/businesses/${bid}/backups`);
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      const sealFile = path.join(dataDir, 'backups', 'seal.key');
      expect(statSync(sealFile).mode & 0o777).toBe(0o600);
      const localKey = readFileSync(sealFile, 'utf8').trim();
      expect(again.body.backup.summary.sealKeyId).toBe(sealKeyId(localKey));
      expect(again.body.backup.summary.sealKeyId).not.toBe(backup.backup.summary.sealKeyId);
      const audit = cli(dataDir, 'audit', 'verify', '--mode', 'test');
      expect(audit.code, audit.stderr).toBe(0);
      expect(audit.json).toMatchObject({ ok: true });
      expect(audit.json.rows).toBeGreaterThan(10);
    } finally {
      process.env.BACKUP_SEAL_KEY = saved;
      if (server) {
        // A graceful stop: the server stops its embedded PostgreSQL too (SIGKILL would leave it running).
        server.child.kill('SIGTERM');
        await server.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
