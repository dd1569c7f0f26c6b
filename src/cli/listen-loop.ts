import { envelope, signWebhook } from '../webhooks/index.ts';

/** An event as GET /v1/events answers it. */
interface ApiEvent {
  id: string;
  type: string;
  businessId: string | null;
  data: unknown;
  createdAt: string;
}

/** What the loop needs from the world, injected so that tests drive it without real waiting. */
export interface ListenIo {
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
  /** One line per forwarded event. */
  out(line: string): void;
  /** Connection trouble and recoveries. */
  err(line: string): void;
  nowMs(): number;
}

export interface ListenTarget {
  server: string;
  key: string;
  forwardTo: string;
  secret: string;
  /** Comma-separated event names, checked by the server (400 names the bad one). */
  events?: string;
  pollMs: number;
}

/** Events may commit a little after their created_at: each poll looks this far behind the newest one seen. */
const OVERLAP_MS = 60_000;
const MAX_BACKOFF_MS = 10_000;

/** A failure the loop cannot outlast (a refused key, a bad filter): ends `pinkas listen` with its exit code. */
export class ListenStop extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A forwarded event's delivery id: the same on every forward of the event (receivers dedupe on it, across restarts of the listener too). */
export const deliveryIdOf = (eventId: string): string => `del_${eventId.replace(/^evt_/, '')}`;

/**
 * Polls GET /v1/events for new events of the key and forwards each, signed like a real delivery, to a local URL.
 * A server that goes away (restart, crash) is polled again with a growing pause; nothing it recorded meanwhile is missed.
 */
export class EventForwarder {
  private readonly seen = new Map<string, number>();
  private watermarkMs = 0;
  private down = false;

  constructor(
    private readonly t: ListenTarget,
    private readonly io: ListenIo,
  ) {}

  /** Marks what exists now as seen (not forwarded): the listener forwards what happens from its start on. */
  async start(): Promise<void> {
    const { events, serverNowMs } = await this.fetchSince(null);
    this.watermarkMs = serverNowMs ?? this.io.nowMs();
    for (const e of events) this.remember(e);
  }

  /** Polls until `signal` aborts; answers when it does. */
  async run(signal: AbortSignal): Promise<void> {
    let backoff = this.t.pollMs;
    while (!signal.aborted) {
      try {
        await this.pollOnce();
        if (this.down) this.io.err('server is back; forwarding');
        this.down = false;
        backoff = this.t.pollMs;
      } catch (err) {
        if (err instanceof ListenStop) throw err;
        backoff = this.down ? Math.min(backoff * 2, MAX_BACKOFF_MS) : this.t.pollMs;
        if (!this.down) this.io.err(`server unreachable (${(err as Error).message}); retrying`);
        this.down = true;
      }
      await this.io.sleep(backoff);
    }
  }

  /** One poll: every event not seen yet, oldest first, forwarded. */
  async pollOnce(): Promise<number> {
    const { events } = await this.fetchSince(this.watermarkMs - OVERLAP_MS);
    const fresh = events.filter((e) => !this.seen.has(e.id)).reverse();
    for (const e of fresh) {
      this.remember(e);
      await this.forward(e);
    }
    for (const [id, at] of this.seen) if (at < this.watermarkMs - 2 * OVERLAP_MS) this.seen.delete(id);
    return fresh.length;
  }

  private remember(e: ApiEvent): void {
    const at = Date.parse(e.createdAt);
    this.seen.set(e.id, at);
    if (at > this.watermarkMs) this.watermarkMs = at;
  }

  /** Every page of events created after `sinceMs` (all of the last minute at start), newest first. */
  private async fetchSince(sinceMs: number | null): Promise<{ events: ApiEvent[]; serverNowMs: number | null }> {
    const events: ApiEvent[] = [];
    let cursor: string | null = null;
    let serverNowMs: number | null = null;
    do {
      const q = new URLSearchParams({ take: '500' });
      if (sinceMs !== null) q.set('createdAfter', new Date(sinceMs).toISOString());
      if (this.t.events) q.set('type', this.t.events);
      if (cursor) q.set('cursor', cursor);
      const res = await this.io.fetch(`${this.t.server}/v1/events?${q}`, { headers: { 'x-api-key': this.t.key }, signal: AbortSignal.timeout(10_000) });
      const body = (await res.json().catch(() => ({}))) as { events?: ApiEvent[]; nextCursor?: string | null; error?: string };
      if (res.status === 401 || res.status === 403 || res.status === 400)
        throw new ListenStop(`the server refused: ${body.error ?? res.status}`, res.status === 400 ? 2 : 1);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      serverNowMs ??= Date.parse(res.headers.get('date') ?? '') || null;
      events.push(...(body.events ?? []));
      cursor = body.nextCursor ?? null;
    } while (cursor);
    return { events, serverNowMs };
  }

  /** POSTs the envelope with the headers and signature of a real delivery (src/webhooks/dispatcher.ts). */
  private async forward(e: ApiEvent): Promise<void> {
    const id = deliveryIdOf(e.id);
    const payload = envelope({ id, event: e.type, mode: 'sandbox', businessId: e.businessId, createdAt: e.createdAt, data: e.data });
    const started = this.io.nowMs();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'pinkas-listen/1',
      'x-service-event': e.type,
      'x-service-delivery': id,
      'x-service-mode': 'sandbox',
      'x-service-signature': signWebhook(this.t.secret, payload, Math.floor(started / 1000)),
    };
    let outcome: string;
    try {
      const res = await this.io.fetch(this.t.forwardTo, { method: 'POST', headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer().catch(() => null);
      outcome = `${res.status}`;
    } catch (err) {
      outcome = `failed (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`;
    }
    this.io.out(`${e.createdAt}  ${e.type}  ${e.id}  ${id}  -> ${outcome} (${this.io.nowMs() - started} ms)`);
  }
}
