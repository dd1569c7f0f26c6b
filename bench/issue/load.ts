/**
 * The load generator of `bench/issue.bench.ts`, in a process of its own: keep-alive HTTP (node:http,
 * one socket per request in flight) against a pinkas server, and the floor's bare transactions
 * against the same database with pg. Reads its job from argv[2] (JSON), prints one JSON line.
 *
 *  { kind: 'setup', base, key, businesses }                       → { businessIds }
 *  { kind: 'issue', base, key, businessIds, docs, concurrency, first } → figures of draft + issue per document (documents first…first+docs-1)
 *  { kind: 'floor', databaseUrl, businessIds, count, concurrency } → figures of the bare transaction
 *  { kind: 'sqlFloor', databaseUrl, businessIds, count, concurrency } → figures of pinkas's own statements alone (sql-floor.ts),
 *    with `cpuMs`: the CPU time (user + system) its PostgreSQL backends spent on them, when their /proc is readable
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { floorDocument, readSample } from './sql-floor.ts';

type Job =
  | { kind: 'setup'; base: string; key: string; businesses: number }
  | { kind: 'issue'; base: string; key: string; businessIds: string[]; docs: number; concurrency: number; first: number }
  | { kind: 'floor' | 'sqlFloor'; databaseUrl: string; businessIds: string[]; count: number; concurrency: number };

const job = JSON.parse(process.argv[2]) as Job;

function client(base: string, key: string, sockets: number) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return (path: string, body?: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          agent,
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 500) >= 300) reject(new Error(`${path}: ${res.statusCode} ${text}`));
            else resolve(JSON.parse(text));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/** A process's CPU time so far (user + system, ms) from /proc; null where it cannot be read (another machine, no /proc). */
function backendCpuMs(pid: number): number | null {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 a second).
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

const figures = (n: number, ms: number, lat: number[]) => {
  lat.sort((a, b) => a - b);
  return {
    n,
    ms: Math.round(ms),
    perSecond: Math.round((n * 1000) / ms),
    p50: +pct(lat, 50).toFixed(1),
    p95: +pct(lat, 95).toFixed(1),
    p99: +pct(lat, 99).toFixed(1),
  };
};

/** Runs `count` tasks with `concurrency` in flight; returns the wall time. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - t0;
}

function draftBody(i: number) {
  const price = 10_000 + (i % 997);
  return {
    docType: 320,
    party: { name: `לקוח ${i}` },
    lines: [
      { description: 'שירות', quantity: 1, unitPriceExVat: price },
      { description: 'חלקים', quantity: 2.5, unitPriceExVat: 3_333 },
    ],
    payments: [{ method: 'card', amount: Math.round((price + 8_333) * 1.18) }],
  };
}

async function main(): Promise<unknown> {
  if (job.kind === 'setup') {
    const call = client(job.base, job.key, 4);
    const businessIds: string[] = [];
    for (let b = 0; b < job.businesses; b++) {
      businessIds.push((await call('/v1/businesses', { name: `bench ${b}`, taxId: '516179157', dealerType: 'company' })).business.id);
    }
    return { businessIds };
  }
  if (job.kind === 'issue') {
    const { businessIds, docs, concurrency, first } = job;
    const call = client(job.base, job.key, concurrency);
    const one = async (i: number, lat?: { draft: number[]; issue: number[]; both: number[] }) => {
      const bid = businessIds[i % businessIds.length];
      const t0 = performance.now();
      const d = await call(`/v1/businesses/${bid}/documents`, draftBody(i));
      const t1 = performance.now();
      const r = await call(`/v1/businesses/${bid}/documents/${d.document.id}/issue`);
      const t2 = performance.now();
      if (!r.document.docNumber) throw new Error('issued without a number');
      lat?.draft.push(t1 - t0);
      lat?.issue.push(t2 - t1);
      lat?.both.push(t2 - t0);
    };
    const lat = { draft: [] as number[], issue: [] as number[], both: [] as number[] };
    const ms = await pool(docs, concurrency, (i) => one(first + i, lat));
    return { documents: figures(docs, ms, lat.both), draft: figures(docs, ms, lat.draft), issue: figures(docs, ms, lat.issue) };
  }
  const { databaseUrl, businessIds, count, concurrency } = job;
  const db = new pg.Pool({ connectionString: databaseUrl, max: concurrency });
  if (job.kind === 'sqlFloor') {
    try {
      const sample = await readSample(db, businessIds);
      // The pool's connections, opened before the run and kept busy through it: their backends' CPU,
      // read around the run, is what the statements cost PostgreSQL (unlike wall time, about the same on a loaded machine).
      const clients = await Promise.all(Array.from({ length: concurrency }, () => db.connect()));
      const pids = await Promise.all(clients.map(async (c) => Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)));
      for (const c of clients) c.release();
      const cpu0 = pids.map(backendCpuMs);
      const lat: number[] = [];
      const ms = await pool(count, concurrency, async (i) => {
        const t0 = performance.now();
        await floorDocument(db, sample, businessIds[i % businessIds.length]);
        lat.push(performance.now() - t0);
      });
      const cpu1 = pids.map(backendCpuMs);
      const cpuMs = [...cpu0, ...cpu1].includes(null) ? null : cpu1.reduce<number>((a, x, i) => a + x! - cpu0[i]!, 0);
      return { ...figures(count, ms, lat), cpuMs };
    } finally {
      await db.end();
    }
  }
  try {
    await db.query('CREATE TABLE IF NOT EXISTS bench_floor (id text PRIMARY KEY, n bigint NOT NULL, body jsonb NOT NULL)');
    await db.query('CREATE TABLE IF NOT EXISTS bench_floor_counters (series text PRIMARY KEY, last_number bigint NOT NULL)');
    const lat: number[] = [];
    const ms = await pool(count, concurrency, async (i) => {
      const t0 = performance.now();
      const c = await db.connect();
      try {
        await c.query('BEGIN');
        const r = await c.query(
          `INSERT INTO bench_floor_counters(series, last_number) VALUES ($1, 1)
           ON CONFLICT (series) DO UPDATE SET last_number = bench_floor_counters.last_number + 1 RETURNING last_number`,
          [businessIds[i % businessIds.length]],
        );
        await c.query('INSERT INTO bench_floor(id, n, body) VALUES ($1, $2, $3)', [`f${process.pid}-${i}`, r.rows[0].last_number, JSON.stringify({ i })]);
        await c.query('COMMIT');
      } finally {
        c.release();
      }
      lat.push(performance.now() - t0);
    });
    await db.query('DROP TABLE bench_floor, bench_floor_counters');
    return figures(count, ms, lat);
  } finally {
    await db.end();
  }
}

main().then(
  (r) => {
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`load: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
