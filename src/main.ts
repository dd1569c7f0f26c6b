import './platform/heap.ts';
import cluster from 'node:cluster';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { loadConfig, ConfigError, type Config } from './platform/config.ts';
import { createLogger, errorSummary, type Logger } from './platform/logger.ts';
import { systemClock } from './platform/clock.ts';
import { DataDirLockedError } from './platform/db/datadir-lock.ts';
import { EmbeddedClusterError } from './platform/db/embedded-cluster.ts';
import { attachDatabases, openDatabases, type OpenDatabases } from './platform/db/open.ts';
import { createServices } from './services.ts';
import type { Services } from './platform/http/services.ts';
import { bootstrapLocalAccount } from './bootstrap.ts';
import { domains } from './domains.ts';
import { releaseJobLeases } from './platform/jobs.ts';
import { joinSupervisor, startBackground, startWeb, type Running, ROLE_VARIABLE, supervise, type Role } from './runtime/index.ts';

/** SIGTERM/SIGINT (and, in a worker, the supervisor's end) run `stop` once, then exit 0. */
function onStopSignals(logger: Logger, stop: () => Promise<void>, opts: { whenOrphaned?: boolean } = {}): void {
  let stopping = false;
  const run = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, pid: process.pid }, 'stopping');
    try {
      await stop();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void run('SIGINT'));
  process.on('SIGTERM', () => void run('SIGTERM'));
  // The supervisor died without stopping its workers (killed): a worker stops too.
  if (opts.whenOrphaned) process.on('disconnect', () => void run('supervisor gone'));
}

/** A forked worker of a supervised server: attaches to the supervisor's databases and plays its role. */
async function runWorker(config: Config, logger: Logger, role: Role): Promise<void> {
  if (role === 'background') {
    try {
      os.setPriority(config.processes.backgroundNice);
    } catch (err) {
      logger.warn({ err: errorSummary(err) }, 'could not lower the priority of the background worker');
    }
  }
  const opened = await attachDatabases(config);
  const s = createServices(config, systemClock, logger, opened.databases);
  const running: Running = role === 'web' ? await startWeb(s) : startBackground(s);
  const leave = joinSupervisor(role);
  onStopSignals(
    logger,
    async () => {
      leave();
      await running.stop();
      await opened.close();
    },
    { whenOrphaned: true },
  );
}

async function openOrExit(config: Config): Promise<OpenDatabases> {
  try {
    return await openDatabases(config, 'server');
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof EmbeddedClusterError) process.stderr.write(`pinkas: ${err.message}\n`);
    else process.stderr.write(`pinkas: cannot open the databases: ${errorSummary(err).message}\n`);
    process.exit(3);
  }
}

/**
 * The file store must answer before the server takes a request: a misconfigured bucket or an unwritable
 * folder stops the start (exit 3). On server PostgreSQL, files on this machine's disk are one machine's.
 */
async function checkFileStores(s: Services, logger: Logger): Promise<void> {
  for (const mode of ['live', 'sandbox'] as const) {
    try {
      await s.fileStores[mode].current.check();
    } catch (err) {
      process.stderr.write(`pinkas: ${errorSummary(err).message}\n`);
      process.exit(3);
    }
  }
  if (s.databases.live.kind === 'server' && !s.config.files.s3) {
    logger.warn(
      { filesDir: s.config.files.dir },
      "FILES_S3_BUCKET is not set: stored files (signed PDFs, receipts, exports, backups) are kept on this machine's disk. " +
        'A deployment of several server processes or machines on one PostgreSQL needs S3-compatible object storage (FILES_S3_BUCKET): ' +
        'a process elsewhere cannot read these files (docs/files.md)',
    );
  }
}

/** Prints the first-start key once, and keeps it in the data folder (outside production only, readable by its owner alone) for a guide's `KEY=$(cat data/first-start-key)`. */
function announceFirstKey(config: Config, first: { accountId: string; key: string }): void {
  const keyFile = path.join(config.dataDir, 'first-start-key');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(keyFile, `${first.key}\n`, { mode: 0o600 });
  process.stdout.write(
    `\nFirst start: created a local account (${first.accountId}) and a sandbox API key.\n` +
      `It is shown this once (and kept in ${keyFile}):\n\n  ${first.key}\n\n` +
      `Try: curl -H 'X-Api-Key: ${first.key}' http://localhost:${config.port}/v1/keys\n\n`,
  );
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`pinkas: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const role = process.env[ROLE_VARIABLE];
  if (cluster.isWorker && (role === 'web' || role === 'background')) return runWorker(config, logger, role);

  const startedAt = performance.now();
  const opened = await openOrExit(config);
  const s = createServices(config, systemClock, logger, opened.databases);
  await checkFileStores(s, logger);
  if (opened.databases.live.kind === 'embedded') {
    // One server per embedded cluster (the data-folder lock): any lease left is a killed predecessor's.
    for (const database of Object.values(opened.databases)) {
      let released = await releaseJobLeases(database);
      for (const d of domains) if (d.releaseLeases) released += await d.releaseLeases(database);
      if (released > 0) logger.warn({ mode: database.mode, released }, 'took over the background work of a process that stopped without finishing it');
    }
  }
  const first = await bootstrapLocalAccount(s);
  if (first) announceFirstKey(config, first);

  const workers = config.processes.webWorkers;
  if (workers === 0) {
    const web = await startWeb(s);
    logger.info({ ms: Math.round(performance.now() - startedAt), database: opened.databases.live.kind }, 'ready');
    const background = startBackground(s);
    onStopSignals(logger, async () => {
      await web.stop();
      await background.stop();
      await opened.close();
    });
    return;
  }
  const supervisor = supervise(workers, logger);
  // Until the workers are up, a signal stops them and the cluster the same way.
  onStopSignals(logger, async () => {
    await supervisor.stop();
    await opened.close();
  });
  try {
    await supervisor.ready;
  } catch (err) {
    process.stderr.write(`pinkas: failed to start: ${errorSummary(err).message}\n`);
    await supervisor.stop();
    await opened.close();
    process.exit(1);
  }
  logger.info({ ms: Math.round(performance.now() - startedAt), database: opened.databases.live.kind, webWorkers: workers }, 'ready');
}

main().catch((err) => {
  process.stderr.write(`pinkas: failed to start: ${errorSummary(err).message}\n`);
  process.exit(1);
});
