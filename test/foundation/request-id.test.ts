import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/platform/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createServices } from '../../src/services.ts';
import { buildApp } from '../../src/app.ts';
import { requestLogFields } from '../../src/platform/http/request-id.ts';
import { freshDatabase } from '../helpers/databases.ts';

// A service logging into memory, with the process logger's mixin, and three routes of this test:
// one that logs through the process logger (as services do), the same with a JSON body (the
// request's context must survive body parsing), and one that fails unexpectedly.
const lines: Record<string, unknown>[] = [];
const raw: string[] = [];
let app: FastifyInstance;
let drop: () => Promise<void>;
beforeAll(async () => {
  const live = await freshDatabase('live');
  const sandbox = await freshDatabase('sandbox');
  drop = async () => {
    await live.drop();
    await sandbox.drop();
  };
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) {
        raw.push(l);
        lines.push(JSON.parse(l));
      }
      done();
    },
  });
  const logger = pino({ level: 'info', mixin: requestLogFields }, sink);
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: '/nonexistent' });
  const s = createServices(config, new ManualClock('2026-03-01T08:00:00.000Z'), logger, { live: live.database, sandbox: sandbox.database });
  app = await buildApp(s);
  app.get('/test/service-log', { schema: { hide: true } }, async () => {
    await new Promise((r) => setTimeout(r, 5));
    s.logger.warn({ marker: 'service-get' }, 'a service line');
    return { ok: true };
  });
  app.post('/test/service-log', { schema: { hide: true } }, async () => {
    s.logger.warn({ marker: 'service-post' }, 'a service line');
    return { ok: true };
  });
  app.get('/test/fails', { schema: { hide: true } }, async () => {
    throw new Error('boom');
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await drop?.();
});

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

describe('X-Request-Id from the caller', () => {
  it('keeps a well-formed id: in the header, the error body and the log lines', async () => {
    const id = 'client-42:retry.1_A';
    const r = await get('/v1/keys', { 'x-request-id': id });
    expect(r.statusCode).toBe(401);
    expect(r.headers['x-request-id']).toBe(id);
    expect(r.json().requestId).toBe(id);
    expect(lines.some((l) => l.reqId === id)).toBe(true);
  });

  it('replaces a malformed id by a generated one, never refusing the request', async () => {
    const bad = ['', 'x'.repeat(65), 'has space', 'semi;colon', 'קוד', 'a\tb', 'id/with/slash', '<script>'];
    for (const given of bad) {
      const r = await get('/healthz', { 'x-request-id': given });
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    }
    const longest = 'y'.repeat(64);
    expect((await get('/healthz', { 'x-request-id': longest })).headers['x-request-id']).toBe(longest);
  });

  it('generates a fresh id for each request without one', async () => {
    const a = (await get('/healthz')).headers['x-request-id'];
    const b = (await get('/healthz')).headers['x-request-id'];
    expect(a).toMatch(/^req_/);
    expect(b).toMatch(/^req_/);
    expect(a).not.toBe(b);
  });
});

describe('log lines of a request', () => {
  it('carry its reqId when a service logs through the process logger', async () => {
    await get('/test/service-log', { 'x-request-id': 'svc-get-1' });
    await app.inject({
      method: 'POST',
      url: '/test/service-log',
      headers: { 'x-request-id': 'svc-post-1', 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    const byMarker = (m: string) => lines.filter((l) => l.marker === m);
    expect(byMarker('service-get').map((l) => l.reqId)).toEqual(['svc-get-1']);
    expect(byMarker('service-post').map((l) => l.reqId)).toEqual(['svc-post-1']);
    // Lines of Fastify's request logger carry it once (no duplicate key from the mixin).
    const completed = raw.filter((l) => l.includes('"svc-get-1"') && l.includes('request completed'));
    expect(completed).toHaveLength(1);
    expect(completed[0].split('"reqId"')).toHaveLength(2);
  });

  it('carry it on the unexpected-error line, and the body names the same id', async () => {
    const r = await get('/test/fails', { 'x-request-id': 'failing-1' });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toMatchObject({ reason: 'internal', requestId: 'failing-1' });
    const err = lines.find((l) => l.msg === 'unexpected error');
    expect(err?.reqId).toBe('failing-1');
  });

  it('carry no reqId outside a request', () => {
    const before = lines.length;
    (app.log as pino.Logger).info({ marker: 'outside' }, 'not in a request');
    expect(lines.slice(before).find((l) => l.marker === 'outside')?.reqId).toBeUndefined();
  });

  it('the process logger is built with the request mixin', () => {
    const logger = createLogger('silent') as unknown as Record<symbol, unknown>;
    expect(logger[pino.symbols.mixinSym]).toBe(requestLogFields);
  });
});
