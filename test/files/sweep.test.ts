import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { putBytes, recordFile } from '../../src/platform/files.ts';
import { sweepOrphans } from '../../src/platform/file-store/sweep.ts';
import { fileSweepWorker } from '../../src/files/sweep-worker.ts';

// Issue 31, crashes: an object is put before the transaction that names it commits. A crash (or a rolled
// back transaction) in between leaves an orphan, which the sweep removes once it is older than the grace
// period and no row names it; a row never ends up naming a removed object. The clock is the test's.
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const HOUR = 3_600_000;
let s3: S3TestServer;

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => s3?.close());

describe.each(['fs', 's3'])('on the %s store', (backend) => {
  let env: TestEnv;
  let a: TestAccount;
  let bid: string;

  beforeAll(async () => {
    const s3Env = backend === 's3' ? { ...s3.env, FILES_S3_PREFIX: `sweep-${randomBytes(4).toString('hex')}/` } : {};
    env = await createTestEnv({ env: s3Env });
    a = await env.account();
    bid = (await env.business(a.test)).id;
  });
  afterAll(async () => env?.close());

  const store = () => env.s.fileStores.sandbox.current;
  const sweep = (now: Date) => sweepOrphans({ db: env.db.sandbox.db, store: store(), now, graceMs: env.s.config.files.sweepGraceMs });

  /** A write that put its object and then failed before its row committed (a crash, a refused insert). */
  async function crashedWrite(bytes: Buffer): Promise<void> {
    const object = await putBytes(store(), bytes);
    await expect(
      env.db.sandbox.db.transaction(async (tx) => {
        await recordFile(tx, env.clock.now(), { businessId: bid, object, mime: 'application/pdf', name: 'lost.pdf' });
        throw new Error('the process died here');
      }),
    ).rejects.toThrow('the process died here');
  }

  it('leaves a young orphan (its write may be about to commit) and removes it past the grace period', async () => {
    const orphan = randomBytes(200);
    await crashedWrite(orphan);
    expect(await env.sql('sandbox', `SELECT id FROM files WHERE sha256 = '${sha(orphan)}'`)).toEqual([]);
    expect((await sweep(new Date())).removed).toBe(0);
    expect(await store().stat(sha(orphan))).not.toBeNull();
    const later = new Date(Date.now() + 25 * HOUR);
    const swept = await sweep(later);
    expect(swept.removed).toBe(1);
    expect(await store().stat(sha(orphan))).toBeNull();
  });

  it('never removes an object a row names, however old, nor the object of a row still in the database', async () => {
    const named = randomBytes(300);
    const object = await putBytes(store(), named);
    await env.db.sandbox.db.transaction((tx) => recordFile(tx, env.clock.now(), { businessId: bid, object, mime: 'image/png', name: 'kept.png' }));
    // A row from before 0030 (bytes inline): `files migrate` may have put its object already.
    const legacy = randomBytes(100);
    await putBytes(store(), legacy);
    await env.sql(
      'sandbox',
      `INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at)
       VALUES ('file_legacy', '${bid}', '${sha(legacy)}', 'image/png', 100, 'l.png', '\\x${legacy.toString('hex')}'::bytea, now())`,
    );
    const r = await sweep(new Date(Date.now() + 1000 * HOUR));
    expect(r.removed).toBe(0);
    expect(await store().stat(sha(named))).not.toBeNull();
    expect(await store().stat(sha(legacy))).not.toBeNull();
    // Every row of the business still has its object.
    for (const row of await env.sql<any>('sandbox', `SELECT sha256 FROM files WHERE business_id = '${bid}' AND store IS NOT NULL`)) {
      expect(await store().stat(row.sha256)).not.toBeNull();
    }
  });

  it('keeps an orphan that a new write of the same content has just put again', async () => {
    const bytes = randomBytes(150);
    await crashedWrite(bytes);
    // Hours later the same content is written again: the put refreshes the object's age before its row commits.
    const again = await putBytes(store(), bytes);
    const cutOff = new Date(Date.now() - 60_000);
    expect(await store().removeIfOlder(again.sha256, cutOff)).toBe(false);
    await env.db.sandbox.db.transaction((tx) => recordFile(tx, env.clock.now(), { businessId: bid, object: again, mime: 'image/png', name: 'again.png' }));
    expect((await sweep(new Date(Date.now() + 1000 * HOUR))).removed).toBe(0);
    expect(await store().stat(sha(bytes))).not.toBeNull();
  });

  it('keeps going past an orphan the store refuses to remove (a retention not over), and counts it', async () => {
    const locked = randomBytes(111);
    const free = randomBytes(112);
    await crashedWrite(locked);
    await crashedWrite(free);
    const real = store();
    const retaining = Object.create(real) as typeof real;
    retaining.removeIfOlder = async (sha256: string, olderThan: Date) => {
      if (sha256 === sha(locked)) throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
      return real.removeIfOlder(sha256, olderThan);
    };
    const r = await sweepOrphans({ db: env.db.sandbox.db, store: retaining, now: new Date(Date.now() + 25 * HOUR), graceMs: env.s.config.files.sweepGraceMs });
    expect(r).toMatchObject({ removed: 1, refused: 1 });
    expect(await real.stat(sha(locked))).not.toBeNull();
    expect(await real.stat(sha(free))).toBeNull();
    expect((await sweep(new Date(Date.now() + 25 * HOUR))).removed).toBe(1);
  });

  it('removes spools of writes that never finished, only once they are old', async () => {
    mkdirSync(store().spoolDir, { recursive: true });
    const stale = path.join(store().spoolDir, 'crashed-write.spool');
    writeFileSync(stale, 'half a file');
    utimesSync(stale, new Date(Date.now() - 30 * HOUR), new Date(Date.now() - 30 * HOUR));
    const fresh = path.join(store().spoolDir, 'writing-now.spool');
    writeFileSync(fresh, 'a write in progress');
    const r = await sweep(new Date());
    expect(r.spools).toBe(1);
    expect(readdirSync(store().spoolDir)).toContain('writing-now.spool');
    expect(readdirSync(store().spoolDir)).not.toContain('crashed-write.spool');
  });

  it('is run by `pinkas files sweep` and by the background worker', async () => {
    const one = randomBytes(120);
    const two = randomBytes(130);
    await crashedWrite(one);
    await crashedWrite(two);
    env.clock.set(new Date(Date.now() + 48 * HOUR));
    const r = await commands['files sweep'].run(env.s, parseArgs(['files', 'sweep', '--mode', 'test', '--json']));
    const results = r.json.test as { removed: number }[];
    expect(results.reduce((n, x) => n + x.removed, 0)).toBe(2);
    expect(r.text).toMatch(/2 orphans/);

    await crashedWrite(one);
    const worker = fileSweepWorker(env.s, 20);
    for (let i = 0; i < 200 && (await store().stat(sha(one))); i++) await new Promise((res) => setTimeout(res, 20));
    await worker.stop();
    expect(await store().stat(sha(one))).toBeNull();
  });
});
