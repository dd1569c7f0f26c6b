// The low-level Server, not McpServer: McpServer takes tool inputs as zod schemas, while ours are
// the routes' own JSON Schemas, listed and dispatched as they are.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../platform/catalog/scopes.ts';
import { refusal, requestOf, resultOf, type Dispatch } from './call.ts';
import type { Operation } from './operations.ts';

/** What an agent needs before its first call: the order of things and the units. */
const INSTRUCTIONS = [
  "pinkas keeps the books of Israeli businesses and issues their legally valid tax documents. Each tool is one call of the pinkas REST API; its result is the API's JSON answer.",
  'Typical flow: listBusinesses or createBusiness (a business is one Israeli dealer, with its 9-digit tax id) -> createParty or findOrCreateParty (the customer) -> createDocument (a draft: nothing is numbered yet) -> issueDocument (takes the next gapless number and freezes the document; it cannot be edited or deleted afterwards, only credited with createCreditNote) -> getDocument / shareDocument.',
  'Money is in agorot (integer minor units: 1990 = 19.90 NIS) unless a field says otherwise; dates are YYYY-MM-DD.',
  'Creates take idempotencyKey: pass a fresh unique value per thing to create and reuse it when retrying, so a retry never creates twice. Issuing an issued document again answers it unchanged (deduped).',
  "A failed call answers `HTTP <status> <reason>: <message>` and the JSON error; `validation` names the field at fault. The tools listed are the ones this API key's scopes allow.",
].join('\n\n');

export interface ToolServerOptions {
  operations: Operation[];
  /** The caller's key scopes: they decide what is listed and callable. */
  scopes: readonly Scope[];
  dispatch: Dispatch;
  version: string;
}

const allowed = (op: Operation, scopes: readonly Scope[]) => op.scope === undefined || scopes.includes(op.scope);

function toolOf(op: Operation): Tool {
  const write = op.method !== 'GET';
  return {
    name: op.name,
    title: op.title,
    description: op.description,
    inputSchema: op.input.schema as Tool['inputSchema'],
    annotations: {
      readOnlyHint: !write,
      destructiveHint: op.method === 'DELETE',
      idempotentHint: ['GET', 'PUT', 'DELETE'].includes(op.method),
    },
  };
}

/** An MCP server whose tools are the REST operations the caller's key may use. */
export function createToolServer(options: ToolServerOptions): Server {
  const server = new Server({ name: 'pinkas', version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: options.operations.filter((op) => allowed(op, options.scopes)).map(toolOf),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const op = byName.get(request.params.name);
    if (!op) return refusal(`not_found: no tool "${request.params.name}"; tools/list names the tools of this key`);
    if (!allowed(op, options.scopes)) return refusal(`forbidden: this key lacks the "${op.scope}" scope, which ${op.name} needs`);
    const apiRequest = requestOf(op, request.params.arguments ?? {});
    if ('refused' in apiRequest) return refusal(apiRequest.refused);
    return resultOf(await options.dispatch(apiRequest));
  });
  return server;
}
