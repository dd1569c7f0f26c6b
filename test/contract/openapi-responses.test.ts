import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { line, renderRunner, tempDataDir } from '../prints/helpers.ts';
import { createOpenapiValidator, validateTraffic, type OpenapiValidator } from './openapi-validator.ts';

// A real lifecycle through the API, every answer checked against /v1/openapi.json: status
// documented, content type listed, JSON body valid against the operation's response schema.

let env: TestEnv;
let a: TestAccount;
let key: string;
let validator: OpenapiValidator;
let problems: string[];

beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir() } });
  a = await env.account();
  key = (await a.mint({ mode: 'test', scopes: ['businesses', 'documents', 'expenses', 'export'] })).secret;
  const doc = (await env.call('GET', '/v1/openapi.json')).body;
  validator = createOpenapiValidator(doc);
  problems = validateTraffic(env, validator);
});
afterAll(async () => env?.close());

describe('the OpenAPI document against real answers', () => {
  it('a business, a party, a document from draft to credit note, its PDF, lists, an export and its zip', async () => {
    const business = { name: 'עסק לדוגמה בע"מ', taxId: TAX_IDS.company, dealerType: 'company' };
    const created = await env.call('POST', '/v1/businesses', { key, body: business, headers: { 'idempotency-key': 'contract-biz-1' } });
    expect(created.status).toBe(201);
    const bid = created.body.business.id;
    const replay = await env.call('POST', '/v1/businesses', { key, body: business, headers: { 'idempotency-key': 'contract-biz-1' } });
    expect(replay.status).toBe(201);
    expect((await env.call('GET', '/v1/businesses', { key })).status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${bid}`, { key })).status).toBe(200);

    const party = await env.call('POST', `/v1/businesses/${bid}/parties`, { key, body: { name: 'לקוח', taxId: TAX_IDS.person } });
    expect(party.status).toBe(201);
    expect((await env.call('GET', `/v1/businesses/${bid}/parties`, { key })).status).toBe(200);

    const draft = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key,
      body: { docType: 305, party: { partyId: party.body.party.id }, lines: [line()] },
    });
    expect(draft.status).toBe(201);
    const id = draft.body.document.id;
    expect((await env.call('PATCH', `/v1/businesses/${bid}/documents/${id}`, { key, body: { note: 'הערה' } })).status).toBe(200);
    const preview = await env.call('POST', `/v1/businesses/${bid}/documents/${id}/print`, { key });
    expect([preview.status, preview.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect((await env.call('POST', `/v1/businesses/${bid}/documents/${id}/issue`, { key })).status).toBe(201);

    const pending = await env.call('POST', `/v1/businesses/${bid}/documents/${id}/print`, { key });
    expect([pending.status, pending.body?.reason]).toEqual([409, 'pdf_pending']);
    await renderRunner(env).runDue('sandbox');
    const pdf = await env.call('POST', `/v1/businesses/${bid}/documents/${id}/print`, { key });
    expect([pdf.status, pdf.headers['x-print-variant']]).toEqual([200, 'origin']);
    expect((await env.call('GET', `/v1/businesses/${bid}/documents/${id}/prints`, { key })).status).toBe(200);

    const credit = await env.call('POST', `/v1/businesses/${bid}/documents/${id}/credit-note`, { key, body: { reason: 'החזרה' } });
    expect(credit.status).toBe(201);
    expect((await env.call('GET', `/v1/businesses/${bid}/documents?counts=1`, { key })).status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${bid}/documents/${id}`, { key })).status).toBe(200);

    const run = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key, body: { from: '2026-01-01', to: '2026-12-31' } });
    expect(run.status).toBe(201);
    const zip = await env.call('GET', `/v1/files/${run.body.file.id}`, { key });
    expect([zip.status, zip.headers['content-type']]).toEqual([200, 'application/zip']);
    expect((await env.call('GET', `/v1/businesses/${bid}/exports`, { key })).status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${bid}/reports/continuity`, { key })).status).toBe(200);
    expect((await env.call('GET', '/v1/keys', { key })).status).toBe(200);

    // Errors: each in the one shape, with a documented status and reason.
    expect((await env.call('GET', `/v1/businesses/${bid}`)).status).toBe(401);
    expect((await env.call('GET', `/v1/businesses/${bid}/documents/doc_nope`, { key })).status).toBe(404);
    expect((await env.call('GET', '/v1/files/file_nope', { key })).status).toBe(404);
    expect((await env.call('POST', `/v1/businesses/${bid}/documents`, { key, body: { docType: 999 } })).status).toBe(400);
    expect((await env.call('PATCH', `/v1/businesses/${bid}/documents/${id}`, { key, body: { note: 'x' } })).status).toBe(409);
    expect((await env.call('DELETE', `/v1/businesses/${bid}/documents/${id}`, { key })).status).toBe(409);
    const wrongType = await env.call('POST', `/v1/businesses/${bid}/parties`, { key, payload: 'name=x', headers: { 'content-type': 'text/csv' } });
    expect(wrongType.status).toBe(415);
    const reused = await env.call('POST', '/v1/businesses', { key, body: { ...business, name: 'אחר' }, headers: { 'idempotency-key': 'contract-biz-1' } });
    expect([reused.status, reused.body.reason]).toEqual([409, 'conflict']);
    const documentsOnly = (await a.mint({ mode: 'test', scopes: ['documents'] })).secret;
    expect((await env.call('GET', `/v1/businesses/${bid}/exports`, { key: documentsOnly })).status).toBe(403);

    expect(problems).toEqual([]);
    expect(validator.seen.size).toBeGreaterThan(25);
  });

  it('the request examples of the document are accepted as they are', async () => {
    const doc = (await env.call('GET', '/v1/openapi.json')).body;
    // The media type's `example`, or the first of its `examples`.
    const example = (path: string, method = 'post') => {
      const media = doc.paths[path][method].requestBody.content['application/json'];
      return media.example ?? Object.values<{ value: unknown }>(media.examples)[0].value;
    };
    const business = await env.call('POST', '/v1/businesses', { key, body: example('/v1/businesses') });
    expect(business.status, JSON.stringify(business.body)).toBe(201);
    const bid = business.body.business.id;
    const party = await env.call('POST', `/v1/businesses/${bid}/parties`, { key, body: example('/v1/businesses/{bid}/parties') });
    expect(party.status, JSON.stringify(party.body)).toBe(201);
    const draft = await env.call('POST', `/v1/businesses/${bid}/documents`, { key, body: example('/v1/businesses/{bid}/documents') });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issueExample = example('/v1/businesses/{bid}/documents/{id}/issue');
    const issued = await env.call('POST', `/v1/businesses/${bid}/documents/${draft.body.document.id}/issue`, { key, body: issueExample });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect(problems).toEqual([]);
  });

  it('the checker itself refuses what the document does not say', async () => {
    const res = await env.call('GET', '/v1/keys', { key });
    const wrong = { ...res, body: { ...res.body, keys: 'not a list' } };
    expect(validator.check('GET', '/v1/keys', wrong).join('\n')).toMatch(/body\/keys must be array/);
    expect(validator.check('GET', '/v1/keys', { ...res, status: 418 })).toEqual([expect.stringMatching(/status not documented/)]);
    const csv = { ...res, headers: { ...res.headers, 'content-type': 'text/csv' } };
    expect(validator.check('GET', '/v1/keys', csv)).toEqual([expect.stringMatching(/content type "text\/csv" not documented/)]);
    const badReason = { ...res, status: 404, body: { error: 'x', reason: 'made_up', requestId: 'req_1' } };
    expect(validator.check('GET', '/v1/keys', badReason).join('\n')).toMatch(/must be equal to one of the allowed values/);
  });
});
