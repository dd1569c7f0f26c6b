/**
 * Seeds large books from the command line (bench/seed/documents.ts says what is written):
 *
 *   npx tsx bench/seed/main.ts --business BIZ_ID --count 1000000 [--mode test|live] [--per-day 300]
 *       [--last-day YYYY-MM-DD] [--batch 20000] [--parties 500] [--pending] [--database-url postgres://…]
 *
 * The databases are the ones the server uses (DATABASE_URL / DATA_DIR, as `npm run cli` opens them;
 * stop a server on an embedded DATA_DIR first), or the one --database-url names. --mode picks the
 * sandbox (test, the default) or the live database. Prints the progress and the rate.
 */
import { loadConfig } from '../../src/platform/config.ts';
import { openDatabases } from '../../src/platform/db/open.ts';
import { openPool, type Database } from '../../src/platform/db/engine.ts';
import { flag, modeFlag, parseArgs } from '../../src/cli/args.ts';
import { seedDocuments } from './documents.ts';

const args = parseArgs(process.argv.slice(2));
const num = (name: string) => {
  const v = flag(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} must be a whole number`);
  return Number(v);
};
const businessId = flag(args, 'business', true);
const count = num('count') ?? 1_000_000;
const mode = args.flags.mode === undefined ? 'sandbox' : modeFlag(args);
const url = flag(args, 'database-url');

let database: Database;
let close: () => Promise<void>;
if (url) {
  database = await openPool(mode, url, { poolSize: 2 });
  close = () => database.close();
} else {
  const opened = await openDatabases(loadConfig(), 'cli');
  database = opened.databases[mode];
  close = () => opened.close();
}
try {
  let lastPrint = 0;
  const r = await seedDocuments(database, {
    businessId,
    count,
    perDay: num('per-day'),
    lastDay: flag(args, 'last-day'),
    batch: num('batch'),
    parties: num('parties'),
    pending: args.flags.pending === true,
    onProgress: (done, total, ms) => {
      if (ms - lastPrint < 5_000 && done < total) return;
      lastPrint = ms;
      console.log(`${done.toLocaleString('en')} / ${total.toLocaleString('en')} documents, ${Math.round((done * 1000) / ms)}/s`);
    },
  });
  console.log(
    `seeded ${r.documents.toLocaleString('en')} issued documents (${r.auditRows.toLocaleString('en')} audit rows) dated ${r.firstDay}..${r.lastDay} ` +
      `in ${(r.ms / 1000).toFixed(1)} s: ${r.perSecond.toLocaleString('en')} documents/s; series ${JSON.stringify(r.byDocType)}`,
  );
} finally {
  await close();
}
