import { afterAll, beforeAll, expect } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

/** What the MCP tests share: calls through the SDK's client, and the lifecycle an agent runs. */

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The JSON answer of a call that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await call(client, name, args);
  const text = (result.content[0] as { text: string }).text;
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  expect(result.structuredContent).toEqual(JSON.parse(text));
  return result.structuredContent;
}

export const errorText = (result: CallToolResult) => {
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
};

/** The lifecycle an agent runs: a business, a customer, a draft, the issue, the document read back. */
export async function issueThroughTools(client: Client, run: string) {
  const { business } = await ok(client, 'createBusiness', {
    body: { name: `מאפיית ${run} בע"מ`, taxId: TAX_IDS.company, dealerType: 'company' },
    idempotencyKey: `biz-${run}`,
  });
  const { party } = await ok(client, 'createParty', { bid: business.id, body: { name: 'קפה ירושלים', taxId: TAX_IDS.person }, idempotencyKey: `pty-${run}` });
  const draft = await ok(client, 'createDocument', {
    bid: business.id,
    idempotencyKey: `order-${run}`,
    body: {
      docType: 320,
      party: { partyId: party.id },
      lines: [{ description: 'לחם מחמצת', quantity: 2.5, unitPriceExVat: 1990 }],
      payments: [{ method: 'bit', amount: 5871 }],
    },
  });
  expect(draft.document).toMatchObject({ status: 'draft' });
  await ok(client, 'issueDocument', { bid: business.id, id: draft.document.id });
  const read = await ok(client, 'getDocument', { bid: business.id, id: draft.document.id });
  return { business, document: read.document };
}

/** A test environment listening on a free port, for a test file's tests: its origin and an account with a sandbox key. */
export function listeningServer(): { readonly env: TestEnv; readonly origin: string; readonly account: TestAccount } {
  const server = {} as { env: TestEnv; origin: string; account: TestAccount };
  beforeAll(async () => {
    server.env = await createTestEnv();
    await server.env.app.listen({ port: 0, host: '127.0.0.1' });
    server.origin = `http://127.0.0.1:${(server.env.app.server.address() as AddressInfo).port}`;
    server.account = await server.env.account();
  }, 120_000);
  afterAll(async () => {
    await server.env?.close();
  });
  return server;
}
