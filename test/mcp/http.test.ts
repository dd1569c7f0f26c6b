import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TAX_IDS } from '../helpers/env.ts';
import { call, errorText, issueThroughTools, listeningServer, ok } from './helpers.ts';

// The MCP server at /mcp of a listening server, as an agent meets it through the SDK's own client.
const server = listeningServer();

async function httpClient(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'pinkas-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.origin), { requestInit: { headers } }));
  return client;
}

describe('MCP over streamable HTTP (/mcp)', () => {
  it('lists the operations of the OpenAPI document as tools, each described, with its route schema as input', async () => {
    const client = await httpClient({ authorization: `Bearer ${server.account.test}` });
    expect(client.getServerVersion()?.name).toBe('pinkas');
    expect(client.getInstructions()).toContain('issueDocument');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      ...['createBusiness', 'listBusinesses', 'createParty', 'listParties', 'createDocument', 'updateDocument', 'issueDocument', 'createCreditNote'],
      ...['shareDocument', 'listDocuments', 'getDocument', 'createExpense', 'recordExpense', 'getSummaryReport', 'getVatReport', 'createOpenfrmtExport'],
    ]) {
      expect(names).toContain(name);
    }
    // Not JSON in and out (a PDF, a multipart receipt) or not an agent's area (keys, webhooks).
    for (const name of ['printDocument', 'uploadExpenseReceipt', 'downloadFile', 'listKeys', 'createWebhook']) expect(names).not.toContain(name);
    const doc = (await server.env.call('GET', '/v1/openapi.json')).body;
    const operationIds = new Set(Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId)));
    for (const tool of tools) {
      expect(operationIds).toContain(tool.name);
      expect(tool.description!.length, tool.name).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
    }
    const create = tools.find((t) => t.name === 'createDocument')!;
    expect(create.inputSchema.required).toEqual(['bid', 'body']);
    expect(Object.keys(create.inputSchema.properties!)).toEqual(['bid', 'body', 'idempotencyKey']);
    expect(tools.find((t) => t.name === 'getDocument')!.annotations).toMatchObject({ readOnlyHint: true });
    // Issuing again answers deduped by itself: no key to pass, and its body may be left out.
    const issue = tools.find((t) => t.name === 'issueDocument')!;
    expect(issue.inputSchema.required).toEqual(['bid', 'id']);
    expect(issue.inputSchema.properties).not.toHaveProperty('idempotencyKey');
    await client.close();
  }, 60_000);

  it('creates a business, drafts and issues a document and reads it back; a retried create with its key creates nothing', async () => {
    const client = await httpClient({ authorization: `Bearer ${server.account.test}` });
    const { business, document } = await issueThroughTools(client, 'http');
    expect(document).toMatchObject({ status: 'issued', docNumber: 1, docType: 320 });
    const again = await ok(client, 'createBusiness', {
      body: { name: 'מאפיית http בע"מ', taxId: TAX_IDS.company, dealerType: 'company' },
      idempotencyKey: 'biz-http',
    });
    expect(again).toMatchObject({ deduped: true, business: { id: business.id } });
    const listed = await ok(client, 'listDocuments', { bid: business.id, status: 'issued' });
    expect(listed.documents.map((d: { id: string }) => d.id)).toEqual([document.id]);
    // The REST API's own refusal, word for word.
    const refused = errorText(await call(client, 'createDocument', { bid: business.id, body: { docType: 320, lines: 'none' } }));
    expect(refused).toMatch(/^HTTP 400 validation: /);
    expect(refused).toContain('"requestId"');
    const rest = await server.env.call('GET', `/v1/businesses/${business.id}/documents/${document.id}`, { key: server.account.test });
    expect(rest.body.document).toEqual(document);
    await client.close();
  }, 60_000);

  it("lists and calls only what the key's scopes allow: a missing scope is refused by name", async () => {
    const narrow = await server.account.mint({ mode: 'test', scopes: ['businesses'] });
    const client = await httpClient({ 'x-api-key': narrow.secret });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('createBusiness');
    expect(names).toContain('createParty');
    expect(names).not.toContain('createDocument');
    expect(names).not.toContain('issueDocument');
    expect(names).not.toContain('createExpense');
    const { business } = await ok(client, 'createBusiness', { body: { name: 'צר בע"מ', taxId: TAX_IDS.company2, dealerType: 'company' } });
    const refused = errorText(await call(client, 'createDocument', { bid: business.id, body: { docType: 320 } }));
    expect(refused).toBe('forbidden: this key lacks the "documents" scope, which createDocument needs');
    const count = await server.env.sql<{ n: number }>('sandbox', `SELECT count(*)::int AS n FROM documents WHERE business_id = '${business.id}'`);
    expect(count[0].n).toBe(0);
    expect(errorText(await call(client, 'getBusiness', { bid: business.id, verbose: true }))).toContain('unknown argument(s) verbose');
    await client.close();
  }, 60_000);

  it('refuses a missing or unknown key before any MCP message, as the REST API does', async () => {
    await expect(httpClient({})).rejects.toThrow(/401|missing API key/);
    await expect(httpClient({ authorization: 'Bearer bk_test_00000000000000000000000000000000' })).rejects.toThrow(/401|unauthorized/);
    const get = await server.env.call('GET', '/mcp', { key: server.account.test });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  }, 60_000);
});
