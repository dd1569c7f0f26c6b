/**
 * Allocation numbers: how fast pending documents get their number.
 *  1. the simulator's decision alone (pure, per call);
 *  2. the `document.allocation` job on embedded PostgreSQL with the simulator: N issued
 *     pending documents → JobRunner.runDue, documents per second (each: read, ask, one transaction
 *     with the update, audit row and event);
 *  3. the same job through the real ITA client against the local fake authority over HTTP.
 */
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/platform/config.ts';
import { ManualClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import type { Database, Mode } from '../src/platform/db/engine.ts';
import { createServices } from '../src/services.ts';
import { JobRunner, enqueueJob } from '../src/platform/jobs.ts';
import { newId } from '../src/platform/ids.ts';
import { AllocationSimulator } from '../src/allocation/simulator.ts';
import { ALLOCATION_JOB, allocationJobHandler } from '../src/allocation/lifecycle.ts';
import { saveGrant } from '../src/allocation/connections.ts';
import { FakeIta } from '../test/allocation/fake-ita.ts';
import { embeddedDatabases, type BenchDatabases } from './databases.ts';

const N = Number(process.env.BENCH_ALLOCATIONS ?? 500);
const clock = new ManualClock('2026-07-01T08:00:00.000Z');

async function seed(db: Database, count: number): Promise<string> {
  const now = clock.now();
  const bid = newId('biz', now.getTime());
  await db.db.execute(
    sql`INSERT INTO businesses(id, account_id, created_by_key_id, name, tax_id, dealer_type, created_at, updated_at)
        VALUES (${bid}, 'acct_bench', 'key_bench', 'bench', '516179157', 'company', ${now.toISOString()}, ${now.toISOString()})`,
  );
  for (let i = 1; i <= count; i++) {
    const id = newId('doc', now.getTime() + i);
    const party = { partyId: null, key: null, name: 'לקוח', taxId: '512200502', phone: null, email: null, address: null };
    const snapshot = {
      docType: 305,
      docNumber: i,
      documentDate: '2026-07-01',
      valueDate: '2026-07-01',
      issuedAt: now.toISOString(),
      dealer: { name: 'bench', taxId: '516179157', dealerType: 'company', address: null, phone: null, email: null },
      branding: {},
      party,
      lines: [],
      payments: [],
      priceMode: 'net',
      vatRateBp: 1800,
      vatExemptionReason: null,
      totals: { totalExVat: 600_000 + i * 100, vatAmount: 108_000 + i * 18, totalIncVat: 708_000 + i * 118, discountAmount: 0, withholdingAmount: 0 },
      note: null,
      allocationNumber: null,
      linkedDocument: null,
    };
    await db.db.transaction(async (tx) => {
      await tx.execute(
        sql`INSERT INTO documents(id, business_id, status, doc_type, doc_number, party, document_date, value_date, allocation, warnings, snapshot, issued_at, created_at, updated_at)
            VALUES (${id}, ${bid}, 'issued', 305, ${i}, ${JSON.stringify(party)}::jsonb, '2026-07-01', '2026-07-01',
                    '{"status":"pending","number":null,"error":null,"requestedAt":null,"decidedAt":null}'::jsonb,
                    '[{"code":"allocation_missing","message":"m"}]'::jsonb, ${JSON.stringify(snapshot)}::jsonb, ${now.toISOString()}, ${now.toISOString()}, ${now.toISOString()})`,
      );
      await enqueueJob(tx, now, { kind: ALLOCATION_JOB, refId: id, businessId: bid });
    });
  }
  return bid;
}

/** One run on a fresh pair of databases (each run gets its own set). */
async function timeJobs(
  { live, sandbox }: BenchDatabases,
  env: Record<string, string>,
  mode: Mode,
  before?: (db: Database, bid: string) => Promise<void>,
): Promise<void> {
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent', ...env });
  const s = createServices(config, clock, createLogger('silent'), { live, sandbox });
  const db = s.databases[mode];
  const bid = await seed(db, N);
  await before?.(db, bid);
  const runner = new JobRunner({ databases: s.databases, clock, logger: s.logger }, { [ALLOCATION_JOB]: allocationJobHandler(s) }, { batch: 50 });
  const t0 = performance.now();
  const ran = await runner.runDue(mode);
  const ms = performance.now() - t0;
  const granted = (await db.db.execute(sql`SELECT count(*)::int AS n FROM documents WHERE allocation_number IS NOT NULL`)) as unknown as {
    rows: { n: number }[];
  };
  console.log(
    `  ${ran} jobs, ${granted.rows[0].n} granted in ${ms.toFixed(0)} ms → ${((ran / ms) * 1000).toFixed(0)} documents/s (${(ms / ran).toFixed(2)} ms each)`,
  );
}

async function main() {
  const sim = new AllocationSimulator(clock, { timeoutMs: 1000, publicBaseUrl: 'http://x' });
  const input = {
    businessId: 'b',
    invoiceId: 'doc',
    invoiceType: 305,
    vatNumber: '516179157',
    invoiceReferenceNumber: '1',
    customerVatNumber: '512200502',
    customerName: null,
    invoiceDate: '2026-07-01',
    invoiceIssuanceDate: '2026-07-01',
    amountBeforeDiscount: 600_000,
    discount: 0,
    paymentAmount: 600_000,
    vatAmount: 108_000,
    paymentAmountIncludingVat: 708_000,
    note: null,
  };
  const K = 50_000;
  const t0 = performance.now();
  for (let i = 0; i < K; i++) await sim.requestApproval({ ...input, invoiceId: `doc_${i}` });
  const ms = performance.now() - t0;
  console.log(`simulator decision: ${((K / ms) * 1000).toFixed(0)} per second (${((ms * 1000) / K).toFixed(1)} µs each)`);

  // Both runs' databases on the one embedded cluster of this process, stopped in the finally.
  const sets: BenchDatabases[] = [];
  try {
    sets.push(await embeddedDatabases());
    sets.push(await embeddedDatabases());
    await allocationJobs(sets[0], sets[1]);
  } finally {
    for (const set of sets.reverse()) await set.close();
  }
}

async function allocationJobs(first: BenchDatabases, second: BenchDatabases) {
  console.log(`document.allocation job, simulator, embedded PostgreSQL, ${N} pending documents:`);
  await timeJobs(first, {}, 'sandbox');

  const fake = await new FakeIta({ now: () => clock.now(), clientId: 'bench', clientSecret: 'secret', redirectUri: 'http://localhost/ita/callback' }).start();
  try {
    console.log(`document.allocation job, real ITA client → local fake authority over HTTP, embedded PostgreSQL, ${N} pending documents:`);
    await timeJobs(
      second,
      {
        ITA_CLIENT_ID: 'bench',
        ITA_CLIENT_SECRET: 'secret',
        ITA_OAUTH_BASE_URL: fake.url,
        ITA_API_BASE_URL: fake.url,
        ITA_REDIRECT_URI: 'http://localhost/ita/callback',
      },
      'live',
      async (db, bid) => {
        // A real consent through the fake authority's screen and token endpoint.
        fake.consentVatNumbers = [516179157];
        const auth = await fetch(
          `${fake.url}/longtimetoken/oauth2/authorize?response_type=code&client_id=bench&scope=scope&redirect_uri=${encodeURIComponent('http://localhost/ita/callback')}&state=s`,
          { redirect: 'manual' },
        );
        const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
        const res = await fetch(`${fake.url}/longtimetoken/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('bench:secret').toString('base64')}` },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://localhost/ita/callback' }).toString(),
        });
        const t = (await res.json()) as Record<string, string | number>;
        const now = clock.now();
        await db.db.transaction((tx) =>
          saveGrant(tx, {
            at: now,
            businessId: bid,
            provider: 'ita',
            tokens: {
              accessToken: String(t.access_token),
              refreshToken: String(t.refresh_token),
              scope: 'scope',
              consentedOn: null,
              accessExpiresAt: new Date(now.getTime() + 600_000),
              refreshExpiresAt: new Date(now.getTime() + 30 * 86_400_000),
            },
          }),
        );
      },
    );
  } finally {
    await fake.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
