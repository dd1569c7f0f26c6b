import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates, type TLSSocket } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { WebhooksConfig } from '../platform/config.ts';
import { checkTargetUrl, classifyAddress, classifyName, isLoopback, readHost } from './ssrf.ts';

/** Resolves a host name to its addresses; injectable so tests can play DNS (and DNS rebinding). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The outcome of one HTTP attempt. */
export interface AttemptOutcome {
  /** HTTP status when an answer arrived in time, else null. */
  status: number | null;
  durationMs: number;
  /** Why no usable answer (refused target, timeout, TLS, connection...), else null. */
  error: string | null;
  /** The first RESPONSE_BODY_CAP bytes of the answer. */
  body: string | null;
}

/** Bytes of a receiver's answer kept for the delivery log; the rest is discarded unread. */
export const RESPONSE_BODY_CAP = 4096;

class RefusedTarget extends Error {
  constructor(why: string) {
    super(`refused target: ${why}`);
    this.name = 'RefusedTarget';
  }
}

/**
 * Sends deliveries over HTTPS, SSRF-safe: our own connector resolves the host, refuses it if ANY
 * address is non-public, and opens the TLS socket to the very address it checked (no second
 * lookup, so DNS rebinding cannot swap it), then re-checks the socket's remote address.
 * Redirects are never followed (undici only follows with an interceptor), so a 3xx is a failure.
 */
/** Whether this delivery (or registration) may use a plain-HTTP loopback target: `loopbackHttpAllowed` of ssrf.ts for its mode. */
export interface TargetOptions {
  loopbackHttp?: boolean;
}

export class WebhookSender {
  resolver: Resolver;
  private readonly agent: Agent;
  /** Plain HTTP to this machine only (sandbox endpoints outside production); never resolves a name through DNS. */
  private readonly loopbackAgent: Agent;
  private readonly ca: string[] | undefined;

  constructor(
    private readonly config: WebhooksConfig,
    resolver: Resolver = systemResolver,
  ) {
    this.resolver = resolver;
    this.ca = config.caFile ? [...rootCertificates, readFileSync(config.caFile, 'utf8')] : undefined;
    this.agent = new Agent({
      connect: (opts, callback) => {
        this.openSocket(opts.hostname, Number(opts.port) || 443).then(
          (socket) => callback(null, socket),
          (err: Error) => callback(err, null),
        );
      },
      keepAliveTimeout: 4_000,
      connections: 16,
    });
    this.loopbackAgent = new Agent({
      connect: (opts, callback) => {
        openLoopbackSocket(opts.hostname, Number(opts.port) || 80, config.timeoutMs).then(
          (socket) => callback(null, socket),
          (err: Error) => callback(err, null),
        );
      },
      keepAliveTimeout: 4_000,
      connections: 4,
    });
  }

  /** The addresses a host may be reached at, or a RefusedTarget. */
  private async addressesOf(hostname: string): Promise<{ addresses: string[]; servername?: string }> {
    const host = readHost(hostname);
    const allowPrivate = this.config.allowPrivateTargets;
    if (host.kind === 'ip') {
      const why = allowPrivate ? null : classifyAddress(host.address);
      if (why) throw new RefusedTarget(why);
      return { addresses: [host.address] };
    }
    if (!allowPrivate) {
      const why = classifyName(host.name);
      if (why) throw new RefusedTarget(why);
    }
    let addresses: string[];
    try {
      addresses = await this.resolver(host.name);
    } catch (err) {
      throw new Error(`DNS lookup of ${host.name} failed (${(err as { code?: string }).code ?? 'error'})`);
    }
    if (addresses.length === 0) throw new Error(`DNS lookup of ${host.name} found no address`);
    if (!allowPrivate) {
      for (const a of addresses) {
        const why = classifyAddress(a);
        if (why) throw new RefusedTarget(`${host.name} resolves to ${a} (${why})`);
      }
    }
    return { addresses, servername: host.name };
  }

  private async openSocket(hostname: string, port: number): Promise<TLSSocket> {
    const { addresses, servername } = await this.addressesOf(hostname);
    const address = addresses[0];
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: address, port, servername, ca: this.ca, ALPNProtocols: ['http/1.1'] });
      // A black-holed address must not hold a socket for the OS connect timeout.
      socket.setTimeout(this.config.timeoutMs, () => socket.destroy(new Error(`connect timed out after ${this.config.timeoutMs} ms`)));
      socket.once('secureConnect', () => {
        socket.setTimeout(0);
        socket.removeListener('error', reject);
        const remote = socket.remoteAddress;
        const why = this.config.allowPrivateTargets ? null : remote ? classifyAddress(remote) : 'unknown remote address';
        if (why) {
          socket.destroy();
          reject(new RefusedTarget(`connected to ${remote} (${why})`));
          return;
        }
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }

  /**
   * The registration check of a URL: its shape, then (for names) what it resolves to now.
   * Answers the problem for `body.url: …`, or null.
   */
  async checkUrl(raw: string, opts: TargetOptions = {}): Promise<string | null> {
    const shape = checkTargetUrl(raw, { allowPrivate: this.config.allowPrivateTargets, loopbackHttp: opts.loopbackHttp });
    if (!shape.ok) return shape.problem!;
    // Nothing to resolve: a loopback target is reached at 127.0.0.1 or ::1 whatever DNS says.
    if (shape.loopback) return null;
    try {
      await this.addressesOf(shape.url!.hostname);
    } catch (err) {
      const message = (err as Error).message;
      return err instanceof RefusedTarget ? `is refused (${message.replace(/^refused target: /, '')}); only public hosts are allowed` : message;
    }
    return null;
  }

  /** One POST attempt with the deadline; never throws. */
  async send(url: string, headers: Record<string, string>, body: string, opts: TargetOptions = {}): Promise<AttemptOutcome> {
    // Plain HTTP is judged again at every delivery: a live endpoint, or a server now in production, never sends it.
    const plain = url.startsWith('http:') ? checkTargetUrl(url, { allowPrivate: false, loopbackHttp: opts.loopbackHttp }) : null;
    if (plain && !plain.ok) return { status: null, durationMs: 0, error: `refused target: ${plain.problem}`, body: null };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(this.config.timeoutMs);
    let status: number | null = null;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pinkas-webhooks/1', ...headers },
        body,
        dispatcher: plain ? this.loopbackAgent : this.agent,
        signal,
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: this.config.timeoutMs,
      });
      status = res.statusCode;
      const text = await readCapped(res.body).catch(() => null);
      return { status, durationMs: elapsed(), error: redirectNote(status), body: text };
    } catch (err) {
      return { status, durationMs: elapsed(), error: describeError(err, signal, this.config.timeoutMs), body: null };
    }
  }

  /** Lets requests in flight finish (each is bounded by the deadline), then closes the connections. */
  async close(): Promise<void> {
    await Promise.all([this.agent.close().catch(() => {}), this.loopbackAgent.close().catch(() => {})]);
  }
}

/** A TCP socket to this machine: `localhost` is tried at 127.0.0.1, then ::1; the peer must be a loopback address. */
async function openLoopbackSocket(hostname: string, port: number, timeoutMs: number): Promise<Socket> {
  const host = readHost(hostname);
  if (!isLoopback(host)) throw new RefusedTarget(`${hostname} is not this machine`);
  const addresses = host.kind === 'ip' ? [host.address] : ['127.0.0.1', '::1'];
  let last: Error = new Error('no address');
  for (const address of addresses) {
    try {
      return await connectTcp(address, port, timeoutMs);
    } catch (err) {
      last = err as Error;
    }
  }
  throw last;
}

function connectTcp(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`connect timed out after ${timeoutMs} ms`)));
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeListener('error', reject);
      const remote = socket.remoteAddress ?? '';
      if (!isLoopback(readHost(remote))) {
        socket.destroy();
        reject(new RefusedTarget(`connected to ${remote}, not this machine`));
        return;
      }
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_CAP) {
      body.destroy();
      break;
    }
  }
  // PostgreSQL text cannot hold NUL; a binary answer is only kept for people to read.
  return Buffer.concat(chunks)
    .subarray(0, RESPONSE_BODY_CAP)
    .toString('utf8')
    .replace(/\u0000/g, '\uFFFD');
}

const redirectNote = (status: number) => (status >= 300 && status < 400 ? 'redirects are not followed' : null);

function describeError(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `timed out after ${timeoutMs} ms`;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'RefusedTarget') return String(e.message);
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timed out after ${timeoutMs} ms`;
  const message = String(e?.message ?? err)
    .replace(/\u0000/g, '')
    .slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
