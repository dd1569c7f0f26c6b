import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Operation } from './operations.ts';

/**
 * A tool call as the REST request it stands for, and the REST answer as the tool's result. The API
 * itself validates, refuses and deduplicates: a tool answers exactly what the route answers.
 */

/** One request to the API, without the key (the transport adds the caller's). */
export interface ApiRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface ApiAnswer {
  status: number;
  contentType: string;
  /** The `Retry-After` header, when sent (a rate limit, a PDF still rendering). */
  retryAfter?: string;
  text: string;
}

export type Dispatch = (request: ApiRequest) => Promise<ApiAnswer>;

/** A result the agent reads as a failure, in the API's error words. */
export const refusal = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

const queryValue = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

/** The request of a call, or what is wrong with its arguments that no request could carry. */
export function requestOf(op: Operation, args: Record<string, unknown>): ApiRequest | { refused: string } {
  const unknown = Object.keys(args).filter((name) => !op.input.places[name]);
  if (unknown.length > 0) {
    return { refused: `validation: unknown argument(s) ${unknown.join(', ')}; ${op.name} takes ${Object.keys(op.input.places).join(', ') || 'none'}` };
  }
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  let payload: string | undefined;
  let path = op.url;
  for (const [name, place] of Object.entries(op.input.places)) {
    const value = args[name];
    if (place === 'path') {
      if (typeof value !== 'string' && typeof value !== 'number') return { refused: `validation: ${name} is required (a string)` };
      path = path.replace(`:${name}`, encodeURIComponent(String(value)));
    } else if (value === undefined) continue;
    else if (place === 'query') for (const v of [value].flat()) query.append(name, queryValue(v));
    else if (place === 'header') headers['idempotency-key'] = String(value);
    else {
      payload = JSON.stringify(value);
      headers['content-type'] = 'application/json';
    }
  }
  const search = query.toString();
  return { method: op.method, url: search ? `${path}?${search}` : path, headers, payload };
}

/** The API's answer as the tool's result: the JSON itself on success; on failure the error and its reason first. */
export function resultOf(answer: ApiAnswer): CallToolResult {
  const json = answer.contentType.startsWith('application/json') ? parseJson(answer.text) : undefined;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok) {
    const structured = json && typeof json === 'object' && !Array.isArray(json) ? { structuredContent: json as Record<string, unknown> } : {};
    return { content: [{ type: 'text', text: answer.text }], ...structured };
  }
  const error = (json ?? {}) as { error?: string; reason?: string; requestId?: string };
  const retry = answer.retryAfter ? ` Retry after ${answer.retryAfter} s.` : '';
  const head = `HTTP ${answer.status} ${error.reason ?? 'error'}: ${error.error ?? answer.text}.${retry}`;
  return { isError: true, content: [{ type: 'text', text: `${head}\n${answer.text}` }] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
