/**
 * Where pinkas's SQL per document goes (issue 28), statement by statement: a server on a PostgreSQL
 * with pg_stat_statements loaded (PROFILE_DATABASE_URL, track = all), a warm-up through the API, then
 * pinkas's own statements one at a time (sql-floor.ts), and every statement's time per document,
 * nested ones (triggers, functions) included. PROFILE_API=1 measures the server's own statements instead:
 * drafts and issues over HTTP (PROFILE_CONCURRENCY in flight), with the background jobs they cause.
 * PROFILE_SQL_BEFORE runs statements on the database first (e.g. `DROP INDEX …`: what an index costs).
 */
import pg from 'pg';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../test/helpers/server-process.ts';
import { scratchServer } from './scratch-server.ts';

const SERVER = process.env.PROFILE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';
const DOCS = Number(process.env.PROFILE_DOCS ?? 1000);

function load(job: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/issue/load.ts'), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load exited ${code}`))));
  });
}

const scratch = await scratchServer(SERVER, 'prof');
const { server, url, names } = scratch;
try {
  const key = server.firstKey()!;
  const { businessIds } = await load({ kind: 'setup', base: server.base, key, businesses: 8 });
  await load({ kind: 'issue', base: server.base, key, businessIds, docs: 400, concurrency: 4, first: DOCS });
  const db = new pg.Client({ connectionString: url(names.sandbox) });
  await db.connect();
  while (Number((await db.query(`SELECT count(*) AS n FROM jobs WHERE done_at IS NULL AND failed_at IS NULL AND run_at < now()`)).rows[0].n) > 0)
    await new Promise((r2) => setTimeout(r2, 200));
  // As the issue bench does: statistics of the warm-up's rows, so that the plans kept by each connection are those of a
  // server that has run a while (planned on the empty tables, the series' previous-number probe read every document
  // of its business by documents_list_date: 67-82 buffers a probe at ~190 documents a business).
  await db.query('VACUUM (ANALYZE)');
  // Without pg_stat_statements (a cluster not set up as below) only the figures of the run itself are printed.
  const statements = (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'`)).rowCount === 1;
  // PROFILE_SQL_BEFORE: statements run on the database before the measured run (a what-if: an index dropped, a setting).
  if (process.env.PROFILE_SQL_BEFORE) await db.query(process.env.PROFILE_SQL_BEFORE);
  await db.query(statements ? 'SELECT pg_stat_statements_reset(), pg_stat_reset()' : 'SELECT pg_stat_reset()');
  const concurrency = Number(process.env.PROFILE_CONCURRENCY ?? 1);
  if (process.env.PROFILE_API === '1') {
    // The server's own statements as it sends them (draft + issue over HTTP), PDFs and other jobs included.
    const r = await load({ kind: 'issue', base: server.base, key, businessIds, docs: DOCS, concurrency, first: 0 });
    console.log(`API: ${r.documents.perSecond} docs/s, p50 ${r.documents.p50} ms`);
  } else {
    const r = await load({ kind: 'sqlFloor', databaseUrl: url(names.sandbox), businessIds, count: DOCS, concurrency });
    const cpu = r.cpuMs === null ? 'not readable' : `${(r.cpuMs / DOCS).toFixed(3)} ms a document`;
    console.log(`SQL alone: ${r.perSecond} docs/s, p50 ${r.p50} ms; its backends' CPU ${cpu}`);
  }
  const s = await db.query(
    statements
      ? `SELECT calls, total_exec_time AS exec, total_plan_time AS plan, wal_bytes, shared_blks_hit + shared_blks_read AS blks, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) AS q
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT 40`
      : 'SELECT 1 WHERE false',
  );
  for (const x of s.rows)
    console.log(
      `${(x.exec / DOCS).toFixed(3).padStart(7)} ms ${(x.plan / DOCS).toFixed(3).padStart(6)} plan ${(x.calls / DOCS).toFixed(2).padStart(5)}× ${String(Math.round(Number(x.wal_bytes) / DOCS)).padStart(6)} B ${(x.blks / DOCS).toFixed(0).padStart(4)} blk  ${x.q}`,
    );
  const f = await db.query(`SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions ORDER BY self_time DESC`);
  for (const x of f.rows)
    console.log(
      `fn ${x.funcname.padEnd(34)} ${(x.calls / DOCS).toFixed(2)}× self ${(x.self_time / DOCS).toFixed(3)} ms total ${(x.total_time / DOCS).toFixed(3)} ms`,
    );
  await db.end();
} catch (err) {
  console.error('profile failed:', err);
} finally {
  await scratch.close();
}
