import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueFixture } from '../exports/fixture.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { PROTECTING_TRIGGERS } from '../../src/platform/audit.ts';
import { verifyBooks as verifyAuditChains } from '../../src/documents/audit-check.ts';

// What PostgreSQL cannot refuse (the owner or a superuser switching the triggers off) is found
// afterwards by `pinkas audit verify`.
let env: TestEnv;
let a: TestAccount;
let bid: string;
let docs: Record<string, any>;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
  docs = await issueFixture(env, a, bid);
});
afterAll(async () => env?.close());

const verify = () => verifyAuditChains(env.db.sandbox.db);
const cli = async () => commands['audit verify'].run(env.s, parseArgs(['audit', 'verify', '--mode', 'test']));

describe('audit verify', () => {
  it('is clean on untouched books', async () => {
    const r = await verify();
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ ok: true, documents: 5 });
    expect(r.triggers).toBe(Object.values(PROTECTING_TRIGGERS).flat().length);
  });

  it('reports a protecting trigger that is disabled, and stops once it is enabled again', async () => {
    await env.sql('sandbox', 'ALTER TABLE expenses DISABLE TRIGGER expenses_immutable');
    const r = await verify();
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      expect.objectContaining({
        chain: 'triggers',
        trigger: 'expenses_immutable',
        problem: expect.stringMatching(/expenses_immutable on expenses is disabled/),
      }),
    ]);
    const out = await cli();
    expect(out.text).toMatch(/AUDIT TRAIL BROKEN:\ntrigger expenses_immutable on expenses is disabled/);
    await env.sql('sandbox', 'ALTER TABLE expenses ENABLE TRIGGER expenses_immutable');
    expect((await verify()).ok).toBe(true);
  });

  it('reports a trigger enabled for replica sessions only, and one dropped', async () => {
    await env.db.sandbox.db
      .transaction(async (tx) => {
        await tx.execute(sql`ALTER TABLE backups ENABLE REPLICA TRIGGER backups_immutable`);
        await tx.execute(sql`DROP TRIGGER pdf_links_no_truncate ON pdf_links`);
        const r = await verifyAuditChains(tx);
        expect(r.problems.map((p) => p.trigger).sort()).toEqual(['backups_immutable', 'pdf_links_no_truncate']);
        tx.rollback();
      })
      .catch((e) => {
        if (!/rollback/i.test(String(e?.message ?? e))) throw e;
      });
    expect((await verify()).ok).toBe(true);
  });

  it('reports an issued document whose total was changed with the trigger off, by id', async () => {
    const id = docs.invReceipt.id;
    const [before] = await env.sql<any>('sandbox', `SELECT total_inc_vat FROM documents WHERE id = '${id}'`);
    await env.db.sandbox.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE documents DISABLE TRIGGER documents_frozen_after_issue`);
      await tx.execute(sql.raw(`UPDATE documents SET total_inc_vat = total_inc_vat + 100000 WHERE id = '${id}'`));
      await tx.execute(sql`ALTER TABLE documents ENABLE TRIGGER documents_frozen_after_issue`);
    });
    const [after] = await env.sql<any>('sandbox', `SELECT total_inc_vat FROM documents WHERE id = '${id}'`);
    expect(Number(after.total_inc_vat)).toBe(Number(before.total_inc_vat) + 100000);

    const r = await verify();
    expect(r.ok).toBe(false);
    const mine = r.problems.filter((p) => p.documentId === id);
    expect(mine.map((p) => p.problem)).toEqual([
      expect.stringMatching(/snapshot and its columns disagree \(totalIncVat\)/),
      expect.stringMatching(/differs from what its issue audit row \(biz:\S+ #\d+\) recorded \(totalIncVat\)/),
    ]);
    expect(r.problems.filter((p) => p.documentId !== id)).toEqual([]);
    // The chains themselves are intact: only the document check sees it.
    expect((await verifyAuditChains(env.db.sandbox.db, `biz:${bid}`)).problems.every((p) => p.documentId === id)).toBe(true);
    const out = await cli();
    expect(out.text).toContain(`issued document ${id}`);
    expect((out.json.problems as any[]).some((p) => p.documentId === id)).toBe(true);
  });

  it('reports lines and snapshot changed in a replica-mode session (triggers silent, none disabled)', async () => {
    const id = docs.receipt.id;
    await env.db.sandbox.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL session_replication_role = replica`);
      await tx.execute(sql.raw(`UPDATE documents SET snapshot = jsonb_set(snapshot, '{payments,0,amount}', '1') WHERE id = '${id}'`));
    });
    const r = await verify();
    const mine = r.problems.filter((p) => p.documentId === id);
    expect(mine).toHaveLength(1);
    expect(mine[0].problem).toMatch(/recorded \(payments\)/);
    expect(r.problems.filter((p) => p.chain === 'triggers')).toEqual([]);
  });

  it('reports an issued document that no issue audit row records (inserted behind the API)', async () => {
    await env.sql(
      'sandbox',
      `INSERT INTO documents(id, business_id, status, doc_type, doc_number, document_date, value_date, snapshot, issued_at, created_at, updated_at)
       SELECT 'doc_forged', business_id, 'issued', doc_type, 999, document_date, value_date, snapshot || '{"docNumber":999}'::jsonb, issued_at, created_at, updated_at
         FROM documents WHERE id = '${docs.cash.id}'`,
    );
    const r = await verify();
    expect(r.problems).toContainEqual(
      expect.objectContaining({ documentId: 'doc_forged', problem: expect.stringMatching(/no document.issue or document.credit_note audit row/) }),
    );
  });

  it('reports audit rows whose chain head was deleted', async () => {
    await env.db.sandbox.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL session_replication_role = replica`);
      await tx.execute(sql.raw(`DELETE FROM audit_chain_heads WHERE chain = 'biz:${bid}'`));
    });
    const r = await verify();
    expect(r.problems).toContainEqual({ chain: `biz:${bid}`, seq: null, problem: 'audit rows without a chain head (head deleted?)' });
  });
});
