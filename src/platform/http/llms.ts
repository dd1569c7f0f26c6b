import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/**
 * `/llms.txt` (the llmstxt.org convention: a title, a `>` summary, then sections of links and lines)
 * written from the OpenAPI document, so that it lists exactly what `/v1/openapi.json` describes and
 * cannot drift from it. `/integrate.md` serves the guide (docs/integrate.md) it links to.
 */

type Json = Record<string, any>;

export interface LlmsLinks {
  openapi: string;
  guide: string;
  reference: string;
}

export const LLMS_LINKS: LlmsLinks = { openapi: '/v1/openapi.json', guide: '/integrate.md', reference: '/docs' };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `{a, b}` → "`a`, `b`". */
const codes = (items: readonly string[]) => items.map((i) => `\`${i}\``).join(', ');
/** One line: the document's descriptions may hold line breaks. */
const oneLine = (text: unknown) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();

interface Operation {
  method: string;
  path: string;
  op: Json;
}

function operationsOf(doc: Json): Operation[] {
  return Object.entries<Json>(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m] })),
  );
}

/** The `Idempotency-Key` parameter as the document describes it (the first operation taking it). */
function idempotencyKeyOf(ops: Operation[]): { description: string; operations: string[] } | undefined {
  const taking = ops.filter((o) => (o.op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'));
  if (taking.length === 0) return undefined;
  const param = (taking[0].op.parameters as Json[]).find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')!;
  return { description: oneLine(param.description ?? param.schema?.description), operations: taking.map((o) => o.op.operationId ?? `${o.method} ${o.path}`) };
}

/** The llms.txt of an OpenAPI 3.1 document: pure, the same document always gives the same text. */
export function renderLlmsTxt(doc: Json, links: LlmsLinks = LLMS_LINKS): string {
  const ops = operationsOf(doc);
  const out: string[] = [];
  out.push(`# ${doc.info?.title ?? 'API'}`, '', `> ${oneLine(doc.info?.description)}`, '');
  out.push(
    `Version ${doc.info?.version ?? '?'}. JSON over HTTP; paths below are relative to the server's origin. ` +
      `This file is generated from the OpenAPI document and lists its ${ops.length} operations.`,
    '',
  );

  out.push('## Docs', '');
  out.push(`- [OpenAPI 3.1 document](${links.openapi}): every operation, parameter, schema, response and error; generate a client from it`);
  out.push(`- [Integrate in 10 minutes](${links.guide}): start the server, then a whole document lifecycle with curl`);
  out.push(`- [API reference](${links.reference}): the document rendered for reading`, '');

  const schemes = Object.values<Json>(doc.components?.securitySchemes ?? {});
  out.push('## Authentication', '');
  for (const s of schemes) out.push(`- Header \`${s.name}\` (${s.type} in ${s.in}): ${oneLine(s.description)}`);
  const open = ops.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0);
  if (open.length) out.push(`- No key needed: ${codes(open.map((o) => `${o.method} ${o.path}`))}`);
  out.push('');

  const error = doc.components?.schemas?.Error;
  if (error) {
    const fields = Object.entries<Json>(error.properties ?? {});
    out.push('## Errors', '');
    out.push(`Every failure answers the JSON object \`{${fields.map(([name]) => name).join(', ')}}\`:`);
    for (const [name, schema] of fields) out.push(`- \`${name}\`: ${oneLine(schema.description)}`);
    const reasons: string[] = error.properties?.reason?.enum ?? [];
    if (reasons.length) out.push(`- Reasons (closed list): ${codes(reasons)}`);
    const retry = doc.components?.headers?.RetryAfter;
    if (retry) out.push(`- \`Retry-After\`: ${oneLine(retry.description)}`);
    out.push('');
  }

  const idempotency = idempotencyKeyOf(ops);
  if (idempotency) {
    out.push('## Idempotency', '');
    out.push(`- Header \`Idempotency-Key\`: ${idempotency.description}`);
    out.push(`- Taken by: ${codes(idempotency.operations)}`);
    const replayed = doc.components?.headers?.IdempotentReplayed;
    if (replayed) out.push(`- \`Idempotent-Replayed\`: ${oneLine(replayed.description)}`);
    out.push('');
  }

  const headers = doc.components?.headers ?? {};
  if (headers.RequestId || headers.ServiceMode) {
    out.push('## Request ids and mode', '');
    if (headers.RequestId) out.push(`- \`X-Request-Id\` (on every response): ${oneLine(headers.RequestId.description)}`);
    if (headers.ServiceMode) out.push(`- \`X-Service-Mode\` (on every response): ${oneLine(headers.ServiceMode.description)}`);
    out.push('');
  }

  out.push(...operationSections(doc, ops));
  return out.join('\n');
}

/** The guide as it is in the repository (docs/integrate.md), read once. */
const GUIDE = new URL('../../../docs/integrate.md', import.meta.url);

/** `GET /llms.txt` and `GET /integrate.md`: no key, hidden from the OpenAPI document like `/healthz`. */
export function registerLlmsTxt(app: FastifyInstance): void {
  let text: string | undefined;
  app.get('/llms.txt', { schema: { hide: true } }, async (_req, reply) => {
    // Written on the first request: the document is only complete once every route is registered.
    text ??= renderLlmsTxt(app.swagger());
    return reply.type('text/plain; charset=utf-8').send(text);
  });
  const guide = readFileSync(GUIDE, 'utf8');
  app.get(LLMS_LINKS.guide, { schema: { hide: true } }, async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(guide));
}

/** Operations by tag, in the document's tag order; an operation with an undeclared tag still appears. */
function operationSections(doc: Json, ops: Operation[]): string[] {
  const lines: string[] = [];
  const tags: { name: string; description?: string }[] = [...(doc.tags ?? [])];
  for (const o of ops) {
    const tag = o.op.tags?.[0] ?? 'other';
    if (!tags.some((t) => t.name === tag)) tags.push({ name: tag });
  }
  for (const tag of tags) {
    const mine = ops.filter((o) => (o.op.tags?.[0] ?? 'other') === tag.name);
    if (mine.length === 0) continue;
    lines.push(`## Operations: ${tag.name}`, '');
    if (tag.description) lines.push(oneLine(tag.description), '');
    for (const o of mine) lines.push(`- \`${o.method} ${o.path}\` (${o.op.operationId ?? 'no operationId'}): ${oneLine(o.op.summary)}`);
    lines.push('');
  }
  return lines;
}
