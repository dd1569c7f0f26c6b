import { loadConfig, ConfigError } from './platform/config.ts';
import { createLogger, errorSummary } from './platform/logger.ts';
import { systemClock } from './platform/clock.ts';
import { DataDirLockedError } from './platform/db/datadir-lock.ts';
import { EmbeddedClusterError } from './platform/db/embedded-cluster.ts';
import { openDatabases } from './platform/db/open.ts';
import { createServices } from './services.ts';
import { buildApp } from './app.ts';
import { bootstrapLocalAccount } from './bootstrap.ts';
import { allJobHandlers, domains, type Worker } from './domains.ts';
import { JobRunner, releaseJobLeases } from './platform/jobs.ts';

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
  const startedAt = performance.now();
  let opened;
  try {
    opened = await openDatabases(config, 'server');
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof EmbeddedClusterError) {
      process.stderr.write(`pinkas: ${err.message}\n`);
      process.exit(3);
    }
    process.stderr.write(`pinkas: cannot open the databases: ${errorSummary(err).message}\n`);
    process.exit(3);
  }
  const s = createServices(config, systemClock, logger, opened.databases);
  if (opened.databases.live.kind === 'embedded') {
    // One server per embedded cluster (the data-folder lock): any lease left is a killed predecessor's.
    for (const database of Object.values(opened.databases)) {
      let released = await releaseJobLeases(database);
      for (const d of domains) if (d.releaseLeases) released += await d.releaseLeases(database);
      if (released > 0) logger.warn({ mode: database.mode, released }, 'took over the background work of a process that stopped without finishing it');
    }
  }
  const first = await bootstrapLocalAccount(s);
  if (first) {
    process.stdout.write(
      `\nFirst start: created a local account (${first.accountId}) and a sandbox API key.\n` +
        `It is shown this once; keep it:\n\n  ${first.key}\n\n` +
        `Try: curl -H 'X-Api-Key: ${first.key}' http://localhost:${config.port}/v1/keys\n\n`,
    );
  }

  const app = await buildApp(s);
  let stopping = false;
  // While draining, a request in flight gets its answer and then its connection closes, so that an
  // idle keep-alive connection of a client does not hold the shutdown open.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (stopping) reply.header('connection', 'close');
    return payload;
  });
  await app.listen({ port: config.port, host: config.host });
  logger.info({ ms: Math.round(performance.now() - startedAt), database: opened.databases.live.kind }, 'ready');
  const workers: Worker[] = domains.flatMap((d) => (d.worker ? [d.worker(s)] : []));
  workers.push(new JobRunner(s.databases, s.clock, logger, allJobHandlers(s)).start());
  const flushTimer = setInterval(() => {
    s.requestCounter.flush().catch((err) => logger.warn({ err: errorSummary(err) }, 'usage flush failed'));
  }, 5_000);
  flushTimer.unref();

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    clearInterval(flushTimer);
    await app.close();
    await Promise.allSettled(workers.map((w) => w.stop()));
    await s.requestCounter.flush().catch(() => {});
    await opened.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`pinkas: failed to start: ${errorSummary(err).message}\n`);
  process.exit(1);
});
