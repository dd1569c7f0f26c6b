import { randomToken } from '../platform/ids.ts';
import { EventForwarder, ListenStop, type ListenIo } from './listen-loop.ts';

/** Where `pinkas listen` finds the server when neither --url nor PINKAS_URL says (`npm start`'s default port). */
const DEFAULT_URL = 'http://localhost:3000';

export interface ListenOptions {
  forwardTo: string;
  events?: string;
  url?: string;
  pollMs?: string;
}

const realIo: ListenIo = {
  fetch: (...args) => fetch(...args),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  nowMs: () => Date.now(),
};

function httpUrl(raw: string, what: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol === 'http:' || u.protocol === 'https:') return raw;
  } catch {
    /* refused below */
  }
  throw new ListenStop(`${what} must be an http(s) URL, got "${raw}"`, 2);
}

/** The options read and checked: a usage problem is exit 2, before anything is sent. */
function targetOf(options: ListenOptions) {
  const key = process.env.PINKAS_API_KEY?.trim() ?? '';
  if (!key.startsWith('bk_test_')) throw new ListenStop('set PINKAS_API_KEY to a sandbox key (bk_test_…): pinkas listen forwards sandbox events only', 2);
  const pollMs = Number(options.pollMs ?? 1000);
  if (!Number.isInteger(pollMs) || pollMs < 50 || pollMs > 60_000)
    throw new ListenStop(`--poll-ms must be a whole number from 50 to 60000, got "${options.pollMs}"`, 2);
  const secret = process.env.PINKAS_WEBHOOK_SECRET?.trim() || `whsec_${randomToken(32)}`;
  if (!secret.startsWith('whsec_')) throw new ListenStop('PINKAS_WEBHOOK_SECRET must start with whsec_', 2);
  return {
    server: httpUrl(options.url ?? (process.env.PINKAS_URL || DEFAULT_URL), '--url').replace(/\/+$/, ''),
    key,
    forwardTo: httpUrl(options.forwardTo, '--forward-to'),
    secret,
    events: options.events?.trim() || undefined,
    pollMs,
  };
}

/**
 * `pinkas listen --forward-to URL [--events a,b] [--url SERVER]`: forwards each new event of a sandbox key
 * (PINKAS_API_KEY; an environment variable, since a flag shows in `ps`) to a local URL, signed like a real
 * delivery with PINKAS_WEBHOOK_SECRET (else a fresh `whsec_` printed at start). Runs until SIGINT or SIGTERM.
 */
export async function runListen(options: ListenOptions, io: ListenIo = realIo): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const target = targetOf(options);
    const forwarder = new EventForwarder(target, io);
    await startWhenReachable(forwarder, io, stop.signal);
    io.err(`Forwarding new sandbox events of ${target.server}${target.events ? ` (${target.events})` : ''} to ${target.forwardTo}`);
    io.err(`Signing secret: ${target.secret}${process.env.PINKAS_WEBHOOK_SECRET ? '' : ' (set PINKAS_WEBHOOK_SECRET to keep one)'}`);
    await forwarder.run(stop.signal);
    return 0;
  } catch (err) {
    io.err(`error: pinkas listen: ${(err as Error).message}`);
    return err instanceof ListenStop ? err.exitCode : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The first read of the server, waited for (a listener may well be started before the server). */
async function startWhenReachable(forwarder: EventForwarder, io: ListenIo, signal: AbortSignal): Promise<void> {
  for (let told = false; !signal.aborted;) {
    try {
      await forwarder.start();
      return;
    } catch (err) {
      if (err instanceof ListenStop) throw err;
      if (!told) io.err(`waiting for the server (${(err as Error).message})`);
      told = true;
      await io.sleep(1000);
    }
  }
}
