import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';

// `redocly lint` (rules: redocly.yaml) on the document the server serves, offline: no problem at
// all, warnings included. Plus what generators need of every operation.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

let env: TestEnv;
let doc: Record<string, any>;
beforeAll(async () => {
  env = await createTestEnv();
  doc = (await env.call('GET', '/v1/openapi.json')).body;
});
afterAll(async () => env?.close());

const operations = () =>
  Object.entries<Record<string, any>>(doc.paths).flatMap(([p, item]) => Object.entries<any>(item).map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op })));

describe('the OpenAPI document', () => {
  it('passes redocly lint with no error and no warning', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'pinkas-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const { stdout } = await run(
      path.join(ROOT, 'node_modules/.bin/redocly'),
      ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'],
      { cwd: ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const problems = (JSON.parse(stdout).problems as { ruleId: string; message: string; location: { pointer: string }[] }[]).map(
      (p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`,
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it('every operation has a unique camelCase operationId, a described tag and a summary', () => {
    const tags = new Set((doc.tags as { name: string; description: string }[]).map((t) => t.name));
    const ids = new Map<string, string>();
    for (const { where, op } of operations()) {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.get(op.operationId), `${where} repeats the operationId of ${ids.get(op.operationId)}`).toBeUndefined();
      ids.set(op.operationId, where);
      expect(op.tags?.length, where).toBe(1);
      expect(tags.has(op.tags[0]), `${where}: tag ${op.tags[0]}`).toBe(true);
      expect(op.summary, where).toBeTruthy();
    }
    expect(ids.get('createBusiness')).toBe('POST /v1/businesses');
    expect(ids.get('issueDocument')).toBe('POST /v1/businesses/{bid}/documents/{id}/issue');
    expect(ids.get('downloadFile')).toBe('GET /v1/files/{id}');
  });

  it('every error answer is the one Error schema; every answer names its request id and mode', () => {
    for (const { where, op } of operations()) {
      for (const [status, res] of Object.entries<any>(op.responses)) {
        expect(res.headers?.['X-Request-Id']?.$ref, `${where} ${status}`).toBe('#/components/headers/RequestId');
        expect(res.headers?.['X-Service-Mode']?.$ref, `${where} ${status}`).toBe('#/components/headers/ServiceMode');
        if (Number(status) >= 400) expect(res.content?.['application/json']?.schema?.$ref, `${where} ${status}`).toBe('#/components/schemas/Error');
      }
      // Every route refuses bad input and may fail unexpectedly; every /v1 route checks the key.
      const statuses = Object.keys(op.responses);
      expect(statuses, where).toEqual(expect.arrayContaining(where.includes(' /v1/') ? ['400', '401', '403', '429', '500'] : ['400', '500']));
      if (where.includes('{')) expect(statuses, where).toContain('404');
    }
    expect(doc.components.schemas.Error.properties.reason.enum).toContain('pdf_pending');
    expect(doc.paths['/v1/businesses/{bid}/documents/{id}/print'].post.responses['409'].headers['Retry-After']).toBeDefined();
  });

  it('names the resources, their pages and the error, and every operation refers to them', () => {
    const names = ['Document', 'DocumentPage', 'Business', 'BusinessList', 'Party', 'PartyPage', 'Expense', 'ExpensePage'];
    names.push('WebhookEndpoint', 'WebhookEndpointWithSecret', 'WebhookEndpointPage', 'Delivery', 'DeliveryPage', 'Error');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(names));
    const answer = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(answer('/v1/businesses/{bid}', 'get', '200').properties.business).toEqual({ $ref: '#/components/schemas/Business' });
    expect(answer('/v1/businesses/{bid}/parties', 'get', '200')).toEqual({ $ref: '#/components/schemas/PartyPage' });
    expect(answer('/v1/businesses/{bid}/documents', 'get', '200')).toEqual({ $ref: '#/components/schemas/DocumentPage' });
    expect(doc.components.schemas.ExpensePage.properties.expenses.items).toEqual({ $ref: '#/components/schemas/Expense' });
    // No named type is written out inline anywhere else.
    const text = JSON.stringify(doc.paths);
    for (const name of names) expect(text, name).not.toContain(`"title":"${name}"`);
  });

  it('binary answers are binary under their real content types', () => {
    const print = doc.paths['/v1/businesses/{bid}/documents/{id}/print'].post.responses['200'];
    expect(print.content['application/pdf'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(print.headers['X-Print-Variant'].schema.anyOf.map((b: { const: string }) => b.const)).toEqual(['origin', 'copy', 'draft']);
    const file = doc.paths['/v1/files/{id}'].get.responses['200'];
    // text/plain: the PCN874 file (ASCII), downloaded like the others.
    expect(Object.keys(file.content).sort()).toEqual(['application/pdf', 'application/zip', 'image/jpeg', 'image/png', 'image/webp', 'text/plain']);
    expect(doc.paths['/api/docs/{slug}/d.pdf'].get.responses['200'].content['application/pdf'].schema.format).toBe('binary');
    expect(doc.paths['/ita/callback'].get.responses['302'].headers.Location).toBeDefined();
    const upload = doc.paths['/v1/businesses/{bid}/expenses/upload'].post.requestBody.content;
    expect(upload['multipart/form-data'].schema.properties.file.format).toBe('binary');
  });

  it('a body the route reads as {} when left out is not required; every other body is', () => {
    const byId = new Map(operations().map((o) => [o.op.operationId, o.op]));
    for (const id of ['issueDocument', 'createCreditNote', 'printDocument', 'shareDocument', 'correctExpense']) {
      expect(byId.get(id)?.requestBody?.required, id).toBe(false);
    }
    expect(byId.get('createDocument')?.requestBody?.required).toBe(true);
    expect(operations().every((o) => !('x-empty-body-accepted' in o.op))).toBe(true);
  });

  it('every create takes Idempotency-Key', () => {
    const creates = [
      'POST /v1/businesses',
      'POST /v1/businesses/{bid}/parties',
      'POST /v1/businesses/{bid}/parties/find-or-create',
      'POST /v1/businesses/{bid}/documents',
      'POST /v1/businesses/{bid}/documents/{id}/credit-note',
      'POST /v1/webhooks',
      'POST /v1/businesses/{bid}/expenses',
      'POST /v1/businesses/{bid}/expenses/upload',
      'POST /v1/businesses/{bid}/expenses/scan',
      'POST /v1/businesses/{bid}/exports/openfrmt',
      'POST /v1/businesses/{bid}/backups',
    ];
    for (const c of creates) {
      const [method, p] = c.split(' ');
      const op = doc.paths[p][method.toLowerCase()];
      const header = op.parameters.find((x: { in: string; name: string }) => x.in === 'header' && x.name === 'idempotency-key');
      expect(header, c).toBeDefined();
      expect([header.required, header.schema.maxLength], c).toEqual([false, 200]);
      expect(op.responses['409'], c).toBeDefined();
      expect(
        Object.keys(op.responses)
          .filter((s) => s.startsWith('2'))
          .every((s) => op.responses[s].headers['Idempotent-Replayed']),
        c,
      ).toBe(true);
    }
  });
});
