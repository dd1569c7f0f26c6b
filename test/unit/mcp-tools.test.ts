import { describe, expect, it } from 'vitest';
import { inlineRefs, toolInput } from '../../src/mcp/input-schema.ts';
import { requestOf, resultOf } from '../../src/mcp/call.ts';
import type { Operation } from '../../src/mcp/operations.ts';

// A tool's input made of its route's schemas, a call made into the route's request, the answer into
// the tool's result: the pure parts of src/mcp (test/mcp runs them against the app).

const Bid = { type: 'string', minLength: 1 };
const routeInput = toolInput({
  params: { type: 'object', properties: { bid: Bid, id: Bid }, required: ['bid', 'id'] },
  querystring: { type: 'object', properties: { status: { type: 'string' }, take: { type: 'integer' } }, required: ['take'] },
  body: { type: 'object', properties: { reason: { type: 'string' } }, description: 'Why.' },
  bodyUse: 'required',
  idempotencyKey: { type: 'string', maxLength: 200, description: 'Makes the create safe to retry.' },
});
const op: Operation = {
  name: 'createThing',
  title: 'Create a thing',
  description: 'Create a thing.',
  method: 'POST',
  url: '/v1/businesses/:bid/things/:id',
  input: routeInput,
};

describe('tool input schema', () => {
  it('puts path and query parameters at the top, the body under `body`, the Idempotency-Key as idempotencyKey', () => {
    expect(routeInput.places).toEqual({ bid: 'path', id: 'path', status: 'query', take: 'query', body: 'body', idempotencyKey: 'header' });
    expect(routeInput.schema.required).toEqual(['bid', 'id', 'take', 'body']);
    expect(routeInput.schema.additionalProperties).toBe(false);
    const props = routeInput.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.body.description).toBe('The JSON request body. Why.');
    expect(props.idempotencyKey).toMatchObject({ type: 'string', maxLength: 200 });
    expect(props.idempotencyKey.description).toMatch(/^Sent as the `Idempotency-Key` header\..*Makes the create safe to retry\.$/);
  });

  it('leaves an optional body out of `required`, and refuses a name in two places', () => {
    const optional = toolInput({ params: { type: 'object', properties: { bid: Bid } }, body: { type: 'object' }, bodyUse: 'optional' });
    expect(optional.schema.required).toEqual(['bid']);
    expect(() => toolInput({ params: { properties: { body: Bid } }, body: { type: 'object' }, bodyUse: 'required' })).toThrow(
      'argument "body" is both in path and body',
    );
  });

  it('writes shared schemas in place, keeping what sits beside the $ref', () => {
    const shared = { Money: { $id: 'Money', type: 'integer', minimum: 0 }, Line: { $id: 'Line', type: 'object', properties: { amount: { $ref: 'Money#' } } } };
    expect(inlineRefs({ type: 'array', items: { $ref: 'Line', description: 'A line.' } }, shared)).toEqual({
      type: 'array',
      items: { type: 'object', properties: { amount: { type: 'integer', minimum: 0 } }, description: 'A line.' },
    });
    expect(() => inlineRefs({ $ref: 'Nope' }, shared)).toThrow('unknown shared schema "Nope"');
    expect(() => inlineRefs({ $ref: 'Loop' }, { Loop: { items: { $ref: 'Loop' } } })).toThrow('refers to "Loop" within itself');
  });
});

describe('a call as the request of its route', () => {
  it('fills the path, the query, the JSON body and the Idempotency-Key header', () => {
    const request = requestOf(op, { bid: 'biz_1', id: 'a/b', status: 'issued', take: 5, body: { reason: 'החזרה' }, idempotencyKey: 'order-1' });
    expect(request).toEqual({
      method: 'POST',
      url: '/v1/businesses/biz_1/things/a%2Fb?status=issued&take=5',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': 'order-1' },
      payload: '{"reason":"החזרה"}',
    });
  });

  it('repeats a query parameter given a list, and sends no body or key that was not given', () => {
    expect(requestOf(op, { bid: 'b', id: 'i', status: ['draft', 'issued'] })).toEqual({
      method: 'POST',
      url: '/v1/businesses/b/things/i?status=draft&status=issued',
      headers: { accept: 'application/json' },
      payload: undefined,
    });
  });

  it('refuses what no request could carry: an unknown argument, a missing path parameter', () => {
    expect(requestOf(op, { bid: 'b', id: 'i', colour: 'red' })).toEqual({
      refused: 'validation: unknown argument(s) colour; createThing takes bid, id, status, take, body, idempotencyKey',
    });
    expect(requestOf(op, { id: 'i' })).toEqual({ refused: 'validation: bid is required (a string)' });
  });
});

describe('the answer as the tool result', () => {
  it('a 2xx: the JSON as text and as structured content', () => {
    const text = '{"ok":true,"document":{"id":"doc_1"}}';
    expect(resultOf({ status: 201, contentType: 'application/json; charset=utf-8', text })).toEqual({
      content: [{ type: 'text', text }],
      structuredContent: { ok: true, document: { id: 'doc_1' } },
    });
  });

  it('a failure: status, reason and message first, the Retry-After, then the whole error', () => {
    const text = '{"error":"the PDF is being rendered","reason":"pdf_pending","requestId":"req_1"}';
    expect(resultOf({ status: 409, contentType: 'application/json', retryAfter: '2', text })).toEqual({
      isError: true,
      content: [{ type: 'text', text: `HTTP 409 pdf_pending: the PDF is being rendered. Retry after 2 s.\n${text}` }],
    });
  });
});
