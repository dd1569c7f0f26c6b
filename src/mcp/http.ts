import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { API_KEY_HEADER, type ApiAuth, type KeySource } from '../accounts/index.ts';
import { ctxOf } from '../platform/http/context.ts';
import type { Dispatch } from './call.ts';
import type { Operation } from './operations.ts';
import { createToolServer } from './server.ts';

/**
 * Streamable HTTP at `/mcp`, stateless: every POST is authenticated like a REST request and answered
 * by a server made for that key, whose tool calls are requests to the same app with the same key.
 * No session and no server-sent stream: each answer is one JSON body.
 */

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key as the REST API takes it (`X-Api-Key`), or as `Authorization: Bearer`, which MCP clients send. */
const MCP_KEY: KeySource = {
  read: (req) => API_KEY_HEADER.read(req) || (BEARER.exec(String(req.headers.authorization ?? ''))?.[1] ?? ''),
  missing: 'missing API key: send Authorization: Bearer <key> or X-Api-Key',
};

export interface McpRouteOptions {
  auth: ApiAuth;
  operations: () => Operation[];
  version: string;
}

/** The request as the SDK's web-standard transport reads it: its headers (the body is passed parsed). */
function webRequestOf(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'host') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  return new Request(`http://${req.host}${req.url}`, { method: req.method, headers });
}

function dispatchAs(app: FastifyInstance, secret: string): Dispatch {
  return async (request) => {
    const res = await app.inject({
      method: request.method as HTTPMethods,
      url: request.url,
      headers: { ...request.headers, 'x-api-key': secret },
      payload: request.payload,
    });
    const retryAfter = res.headers['retry-after'];
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), retryAfter: retryAfter?.toString(), text: res.payload };
  };
}

async function answer(app: FastifyInstance, options: McpRouteOptions, req: FastifyRequest, reply: FastifyReply) {
  const server = createToolServer({
    operations: options.operations(),
    scopes: ctxOf(req).key.scopes,
    dispatch: dispatchAs(app, MCP_KEY.read(req)),
    version: options.version,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(webRequestOf(req), { parsedBody: req.body });
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    return await reply.send(await response.text());
  } finally {
    await server.close();
  }
}

/** `POST /mcp`; GET (a server-sent stream) and DELETE (a session) answer 405, as the stateless transport has neither. */
export async function registerMcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  await app.register(async (scope) => {
    options.auth.install(scope, MCP_KEY);
    scope.post('/mcp', { schema: { hide: true } }, (req, reply) => answer(app, options, req, reply));
    scope.route({
      method: ['GET', 'DELETE'],
      url: '/mcp',
      schema: { hide: true },
      handler: async (_req, reply) =>
        reply
          .code(405)
          .header('Allow', 'POST')
          .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, POST each message' }, id: null }),
    });
  });
}
