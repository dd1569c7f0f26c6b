import { describe, expect, it } from 'vitest';
import { renderLlmsTxt } from '../../src/platform/http/llms.ts';

// The generator alone: a small document in, llms.txt out (the served one: test/contract/guide.test.ts).

const doc = {
  openapi: '3.1.0',
  info: { title: 'pinkas', version: '1.0.0', description: 'Tax documents\nover JSON.' },
  components: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: '`bk_live_…` or `bk_test_…`.' } },
    schemas: {
      Error: {
        properties: {
          error: { type: 'string', description: 'For people.' },
          reason: { type: 'string', enum: ['validation', 'not_found'], description: 'Stable code.' },
          requestId: { type: 'string', description: 'Also X-Request-Id.' },
        },
      },
    },
    headers: {
      RequestId: { description: 'The id of the request.' },
      ServiceMode: { description: 'sandbox or live.' },
      RetryAfter: { description: 'Seconds to wait.' },
      IdempotentReplayed: { description: 'A replay.' },
    },
  },
  tags: [
    { name: 'businesses', description: 'Dealers.' },
    { name: 'unused', description: 'No operation.' },
  ],
  paths: {
    '/v1/businesses': {
      post: {
        operationId: 'createBusiness',
        tags: ['businesses'],
        summary: 'Create a business',
        parameters: [{ in: 'header', name: 'idempotency-key', description: 'Safe retries.' }],
      },
      get: { operationId: 'listBusinesses', tags: ['businesses'], summary: 'List businesses' },
    },
    '/api/docs/{slug}/d.pdf': { get: { operationId: 'getSharedPdf', tags: ['public'], summary: 'A shared PDF', security: [] } },
  },
};

describe('renderLlmsTxt', () => {
  const text = renderLlmsTxt(doc, { openapi: '/v1/openapi.json', guide: '/integrate.md', reference: '/docs' });

  it('opens with the title and a one-line summary', () => {
    expect(text.split('\n').slice(0, 3)).toEqual(['# pinkas', '', '> Tax documents over JSON.']);
  });

  it('lists every operation under its tag with method, path, operationId and summary', () => {
    expect(text).toContain(
      '## Operations: businesses\n\nDealers.\n\n- `GET /v1/businesses` (listBusinesses): List businesses\n- `POST /v1/businesses` (createBusiness): Create a business\n',
    );
    // An undeclared tag still gets its section; a tag without operations gets none.
    expect(text).toContain('## Operations: public\n\n- `GET /api/docs/{slug}/d.pdf` (getSharedPdf): A shared PDF');
    expect(text).not.toContain('Operations: unused');
    expect(text).toContain('lists its 3 operations');
  });

  it('states authentication, errors, idempotency and the request id from the document', () => {
    expect(text).toContain('- Header `X-Api-Key` (apiKey in header): `bk_live_…` or `bk_test_…`.');
    expect(text).toContain('- No key needed: `GET /api/docs/{slug}/d.pdf`');
    expect(text).toContain('`{error, reason, requestId}`');
    expect(text).toContain('- Reasons (closed list): `validation`, `not_found`');
    expect(text).toContain('- Header `Idempotency-Key`: Safe retries.\n- Taken by: `createBusiness`');
    expect(text).toContain('- `X-Request-Id` (on every response): The id of the request.');
  });

  it('links the OpenAPI document and the guide', () => {
    expect(text).toContain('[OpenAPI 3.1 document](/v1/openapi.json)');
    expect(text).toContain('[Integrate in 10 minutes](/integrate.md)');
  });

  it('follows the document: another operation, another text', () => {
    const more = structuredClone(doc) as typeof doc & { paths: Record<string, unknown> };
    more.paths['/v1/keys'] = { get: { operationId: 'listKeys', tags: ['keys'], summary: 'List keys' } };
    expect(renderLlmsTxt(more)).toContain('- `GET /v1/keys` (listKeys): List keys');
    expect(renderLlmsTxt(doc)).toBe(renderLlmsTxt(structuredClone(doc)));
  });
});
