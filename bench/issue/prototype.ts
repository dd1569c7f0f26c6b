/**
 * The prototype-style floor of `npm run bench -- issue` (issue 28): the smallest server that does what a
 * pinkas document does, to measure pinkas against the same work built bare. Per document, two HTTP
 * requests of one round trip each, on the same database as pinkas, in a schema of its own:
 *  - POST /v1/businesses/{bid}/documents: the body checked by hand, totals and VAT computed, one call
 *    that inserts the draft and appends its audit row to the business's hash chain;
 *  - POST /v1/businesses/{bid}/documents/{id}/issue: one call that locks the draft, checks and bumps
 *    the daily and monthly ceilings, takes the series' next number, freezes the snapshot, appends the
 *    audit row, writes the outbox event and the render job, and posts a balanced journal entry of five
 *    lines under the ledger's entry counter.
 * What it leaves out is what the comparison is for: pinkas's 14 indexes on documents and the search
 * text, the guards that make the books immutable against raw SQL, the request log, idempotency, the
 * snapshot's business details, schema validation and the OpenAPI-shaped responses.
 *
 * Run as its own process: argv[2] = JSON {databaseUrl, key, poolSize}. Prints `{"port":N}` once
 * listening; serves /metrics with the counters bench/issue/stats.ts reads; SIGTERM drops its schema.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const { databaseUrl, key, poolSize } = JSON.parse(process.argv[2]) as { databaseUrl: string; key: string; poolSize: number };
const SCHEMA = 'bench_prototype';

const DDL = `
DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE;
CREATE SCHEMA ${SCHEMA};
SET search_path = ${SCHEMA};
CREATE TABLE documents (id text PRIMARY KEY, business_id text NOT NULL, status text NOT NULL, doc_type int NOT NULL, doc_number bigint,
  party jsonb NOT NULL, lines jsonb NOT NULL, payments jsonb NOT NULL, total_ex_vat bigint NOT NULL, vat_amount bigint NOT NULL,
  total_inc_vat bigint NOT NULL, snapshot jsonb, created_at timestamptz NOT NULL, issued_at timestamptz);
CREATE UNIQUE INDEX documents_number ON documents(business_id, doc_type, doc_number) WHERE doc_number IS NOT NULL;
CREATE INDEX documents_list ON documents(business_id, created_at DESC, id DESC);
CREATE TABLE counters (business_id text, doc_type int, last_number bigint NOT NULL, PRIMARY KEY (business_id, doc_type));
CREATE TABLE usage_daily (business_id text, day date, count bigint NOT NULL, PRIMARY KEY (business_id, day));
CREATE TABLE month_counts (business_id text, month date, count bigint NOT NULL, PRIMARY KEY (business_id, month));
CREATE TABLE audit_heads (chain text PRIMARY KEY, last_seq bigint NOT NULL, last_hash text NOT NULL);
CREATE TABLE audit_log (chain text, seq bigint, entity_id text NOT NULL, action text NOT NULL, body jsonb NOT NULL,
  prev_hash text NOT NULL, hash text NOT NULL, at timestamptz NOT NULL, PRIMARY KEY (chain, seq));
CREATE TABLE outbox (id text PRIMARY KEY, event text NOT NULL, business_id text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE jobs (id text PRIMARY KEY, kind text NOT NULL, ref_id text NOT NULL, run_at timestamptz NOT NULL, UNIQUE (kind, ref_id));
CREATE TABLE ledger_counters (business_id text PRIMARY KEY, last_entry_no bigint NOT NULL);
CREATE TABLE journal_entries (id text PRIMARY KEY, business_id text NOT NULL, entry_no bigint NOT NULL, entry_date date NOT NULL, document_id text NOT NULL);
CREATE TABLE journal_lines (entry_id text REFERENCES journal_entries(id), line_no int, account text NOT NULL, side smallint NOT NULL,
  amount bigint NOT NULL, PRIMARY KEY (entry_id, line_no));

CREATE FUNCTION audit(c text, entity text, act text, body jsonb, t timestamptz) RETURNS void LANGUAGE plpgsql AS $$
DECLARE h record; next text;
BEGIN
  SELECT last_seq, last_hash INTO h FROM audit_heads WHERE chain = c FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO audit_heads VALUES (c, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;
    SELECT last_seq, last_hash INTO h FROM audit_heads WHERE chain = c FOR UPDATE;
  END IF;
  next := encode(sha256(convert_to(h.last_hash || body::text, 'UTF8')), 'hex');
  INSERT INTO audit_log VALUES (c, h.last_seq + 1, entity, act, body, h.last_hash, next, t);
  UPDATE audit_heads SET last_seq = h.last_seq + 1, last_hash = next WHERE chain = c;
END $$;

CREATE FUNCTION draft(p jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO documents(id, business_id, status, doc_type, party, lines, payments, total_ex_vat, vat_amount, total_inc_vat, created_at)
  VALUES (p->>'id', p->>'businessId', 'draft', (p->>'docType')::int, p->'party', p->'lines', p->'payments',
          (p->>'totalExVat')::bigint, (p->>'vatAmount')::bigint, (p->>'totalIncVat')::bigint, (p->>'at')::timestamptz);
  PERFORM audit('biz:' || (p->>'businessId'), p->>'id', 'document.create', p, (p->>'at')::timestamptz);
END $$;

CREATE FUNCTION issue(p jsonb) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE d record; n bigint; c bigint; e bigint; t timestamptz := (p->>'at')::timestamptz; sn jsonb; eid text := p->>'entryId';
BEGIN
  SELECT * INTO d FROM documents WHERE id = p->>'id' AND business_id = p->>'businessId' FOR UPDATE;
  IF NOT FOUND THEN RETURN -1; END IF;
  IF d.status <> 'draft' THEN RETURN -2; END IF;
  INSERT INTO usage_daily VALUES (d.business_id, t::date, 1) ON CONFLICT (business_id, day)
    DO UPDATE SET count = usage_daily.count + 1 WHERE usage_daily.count < (p->>'perDay')::bigint RETURNING count INTO c;
  IF c IS NULL THEN RAISE EXCEPTION 'the daily limit is reached' USING ERRCODE = 'PK001'; END IF;
  c := NULL;
  INSERT INTO month_counts VALUES (d.business_id, date_trunc('month', t)::date, 1) ON CONFLICT (business_id, month)
    DO UPDATE SET count = month_counts.count + 1 WHERE month_counts.count < (p->>'perMonth')::bigint RETURNING count INTO c;
  IF c IS NULL THEN RAISE EXCEPTION 'the monthly ceiling is reached' USING ERRCODE = 'PK002'; END IF;
  INSERT INTO counters VALUES (d.business_id, d.doc_type, 1) ON CONFLICT (business_id, doc_type)
    DO UPDATE SET last_number = counters.last_number + 1 RETURNING last_number INTO n;
  sn := jsonb_build_object('docType', d.doc_type, 'docNumber', n, 'party', d.party, 'lines', d.lines, 'payments', d.payments,
    'totals', jsonb_build_object('totalExVat', d.total_ex_vat, 'vatAmount', d.vat_amount, 'totalIncVat', d.total_inc_vat), 'issuedAt', t);
  UPDATE documents SET status = 'issued', doc_number = n, snapshot = sn, issued_at = t WHERE id = d.id;
  PERFORM audit('biz:' || d.business_id, d.id, 'document.issue', sn, t);
  INSERT INTO outbox VALUES (p->>'eventId', 'document.issued', d.business_id, jsonb_build_object('documentId', d.id, 'docNumber', n), t);
  INSERT INTO jobs VALUES (p->>'jobId', 'document.render', d.id, t);
  INSERT INTO ledger_counters VALUES (d.business_id, 1) ON CONFLICT (business_id)
    DO UPDATE SET last_entry_no = ledger_counters.last_entry_no + 1 RETURNING last_entry_no INTO e;
  INSERT INTO journal_entries VALUES (eid, d.business_id, e, t::date, d.id);
  INSERT INTO journal_lines SELECT eid, l.n, l.account, l.side, l.amount
    FROM jsonb_to_recordset(p->'journal') AS l(n int, account text, side smallint, amount bigint);
  IF (SELECT sum(CASE WHEN side = 1 THEN amount ELSE -amount END) FROM journal_lines WHERE entry_id = eid) <> 0 THEN
    RAISE EXCEPTION 'journal entry % is not balanced', eid;
  END IF;
  RETURN n;
END $$;`;

const VAT_BP = 1800;
// Idle connections stay open: the bench reads the CPU of the backends alive before and after the run.
const db = new pg.Pool({ connectionString: databaseUrl, max: poolSize, idleTimeoutMillis: 0, options: `-c search_path=${SCHEMA}` });
let roundTrips = 0;
let issued = 0;
/** One round trip, as a prepared statement. */
const call = (name: string, text: string, values: unknown[]) => {
  roundTrips++;
  return db.query({ name, text, values });
};

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Line {
  description: string;
  quantity: number;
  unitPriceExVat: number;
}

function draftOf(businessId: string, body: unknown) {
  const b = body as { docType?: unknown; party?: { name?: unknown }; lines?: unknown; payments?: unknown };
  if (b?.docType !== 320 && b?.docType !== 305) throw new Refusal(400, 'docType must be 305 or 320');
  if (typeof b.party?.name !== 'string' || !b.party.name) throw new Refusal(400, 'party.name is required');
  if (!Array.isArray(b.lines) || b.lines.length === 0 || b.lines.length > 100) throw new Refusal(400, 'lines: 1 to 100');
  const lines = (b.lines as Line[]).map((l) => {
    if (typeof l?.description !== 'string' || !Number.isFinite(l.quantity) || !Number.isInteger(l.unitPriceExVat))
      throw new Refusal(400, 'a line needs description, quantity and unitPriceExVat');
    return { ...l, amount: Math.round(l.quantity * l.unitPriceExVat) };
  });
  const totalExVat = lines.reduce((s, l) => s + l.amount, 0);
  const vatAmount = Math.round((totalExVat * VAT_BP) / 10_000);
  const payments = Array.isArray(b.payments) ? (b.payments as { method: string; amount: number }[]) : [];
  return {
    id: randomUUID(),
    businessId,
    docType: b.docType,
    party: b.party,
    lines,
    payments,
    totalExVat,
    vatAmount,
    totalIncVat: totalExVat + vatAmount,
    at: new Date().toISOString(),
  };
}

/** Dr the customer, Cr revenue and VAT; the payment: Dr the card clearing account, Cr the customer. */
function journalOf(d: { total_ex_vat: string; vat_amount: string; total_inc_vat: string }) {
  const inc = Number(d.total_inc_vat);
  return [
    { n: 1, account: 'customer', side: 1, amount: inc },
    { n: 2, account: 'revenue', side: 2, amount: Number(d.total_ex_vat) },
    { n: 3, account: 'vat-out', side: 2, amount: Number(d.vat_amount) },
    { n: 4, account: 'card', side: 1, amount: inc },
    { n: 5, account: 'customer', side: 2, amount: inc },
  ];
}

/** The draft's totals, remembered from its creation in this process (as pinkas's draft cache does). */
const totals = new Map<string, { total_ex_vat: string; vat_amount: string; total_inc_vat: string }>();
async function totalsOf(id: string) {
  const t = totals.get(id);
  if (t) {
    totals.delete(id);
    return t;
  }
  const r = await call('totals', 'SELECT total_ex_vat, vat_amount, total_inc_vat FROM documents WHERE id = $1', [id]);
  if (!r.rows[0]) throw new Refusal(404, 'no such draft');
  return r.rows[0];
}

const DRAFT = /^\/v1\/businesses\/([^/]+)\/documents$/;
const ISSUE = /^\/v1\/businesses\/([^/]+)\/documents\/([^/]+)\/issue$/;

async function handle(method: string, url: string, body: unknown): Promise<[number, unknown]> {
  let m: RegExpExecArray | null;
  if (method === 'POST' && (m = DRAFT.exec(url))) {
    const d = draftOf(m[1], body);
    await call('draft', 'SELECT draft($1::jsonb)', [JSON.stringify(d)]);
    totals.set(d.id, { total_ex_vat: String(d.totalExVat), vat_amount: String(d.vatAmount), total_inc_vat: String(d.totalIncVat) });
    return [201, { document: { ...d, status: 'draft', docNumber: null } }];
  }
  if (method === 'POST' && (m = ISSUE.exec(url))) {
    const at = new Date().toISOString();
    const r = await call(
      'issue',
      `SELECT issue(jsonb_build_object('id', $1::text, 'businessId', $2::text, 'at', $3::text, 'perDay', 100000, 'perMonth', 10000000,
                    'eventId', $4::text, 'jobId', $5::text, 'entryId', $6::text, 'journal', $7::jsonb)) AS n`,
      [m[2], m[1], at, randomUUID(), randomUUID(), randomUUID(), JSON.stringify(journalOf(await totalsOf(m[2])))],
    );
    const n = Number(r.rows[0].n);
    if (n === -1) throw new Refusal(404, 'no such draft');
    if (n === -2) throw new Refusal(409, 'already issued');
    issued++;
    return [200, { document: { id: m[2], status: 'issued', docNumber: n, issuedAt: at } }];
  }
  if (method === 'GET' && url === '/metrics') {
    const cpu = process.cpuUsage();
    return [
      200,
      `process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}\npinkas_documents_issued_total ${issued}\npinkas_db_round_trips_total ${roundTrips}\n`,
    ];
  }
  throw new Refusal(404, 'no such route');
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const reply = (status: number, payload: unknown) => {
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      res.writeHead(status, { 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json' }).end(text);
    };
    if (req.url !== '/metrics' && req.headers['x-api-key'] !== key) return reply(401, { error: 'unauthorized' });
    let body: unknown;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return reply(400, { error: 'the body is not JSON' });
    }
    handle(req.method ?? 'GET', req.url ?? '/', body).then(
      ([status, payload]) => reply(status, payload),
      (err: unknown) => (err instanceof Refusal ? reply(err.status, { error: err.message }) : reply(500, { error: String(err) })),
    );
  });
});

await db.query(DDL);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(JSON.stringify({ port: address.port }) + '\n');
});
process.on('SIGTERM', () => {
  server.close();
  void db.query(`DROP SCHEMA ${SCHEMA} CASCADE`).finally(() => db.end().finally(() => process.exit(0)));
});
