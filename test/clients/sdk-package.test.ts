import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSdk } from '../../packages/sdk/scripts/pack.ts';

// Issue 33 item 7: the tarball of `npm run sdk:pack` installs into a project of its own (under the
// system temp directory, removed afterwards) and type-checks there under --strict: every `ts` block of
// the SDK's README, and a consumer that then runs the packed JavaScript against a scripted fetch.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'packages/sdk/README.md'), 'utf8');
const readmeBlocks = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

/** Runs as a consumer would: its own Idempotency-Key, all() over two pages, a PinkasError, a webhook. */
const CONSUMER = `
import { createHmac } from 'node:crypto';
import { Pinkas, PinkasError, verifyWebhook, type components } from '@pinkas/sdk';

const sent: string[] = [];
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
async function scripted(request: Request): Promise<Response> {
  const url = new URL(request.url);
  sent.push(\`\${request.method} \${url.pathname}\${url.search} \${request.headers.get('idempotency-key') ?? '-'}\`);
  if (request.method === 'POST') return json(201, { ok: true, document: { id: 'doc_1' }, deduped: true });
  if (url.pathname.endsWith('/documents')) {
    return json(200, url.searchParams.has('cursor') ? { ok: true, documents: [{ id: 'd1' }], nextCursor: null } : { ok: true, documents: [{ id: 'd3' }, { id: 'd2' }], nextCursor: 'c1' });
  }
  return json(404, { error: 'no such business', reason: 'not_found', requestId: 'req_42' });
}

const pinkas = new Pinkas({ key: 'bk_test_consumer', baseUrl: 'https://pinkas.example', fetch: scripted });
const created = await pinkas.post('/v1/businesses/{bid}/documents', {
  params: { path: { bid: 'biz_1' }, header: { 'idempotency-key': 'order-1042' } },
  body: { docType: 320, party: { name: 'לקוח' }, lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }] },
});
const ids: string[] = [];
for await (const d of pinkas.all('/v1/businesses/{bid}/documents', 'documents', { params: { path: { bid: 'biz_1' }, query: { take: 2 } } })) ids.push(d.id);
const failure = await pinkas.get('/v1/businesses/{bid}', { params: { path: { bid: 'biz_nope' } } }).catch((e: unknown) => e);
const reason: components['schemas']['Error']['reason'] | null = failure instanceof PinkasError ? 'not_found' : null;

const body = Buffer.from(JSON.stringify({ event: 'webhook.test' }));
const t = Math.floor(Date.now() / 1000);
const header = \`t=\${t},v1=\${createHmac('sha256', 'whsec_consumer').update(\`\${t}.\`).update(body).digest('hex')}\`;

console.log(JSON.stringify({
  mode: pinkas.mode,
  created: [created.document.id, created.deduped],
  ids,
  failure: failure instanceof PinkasError ? [failure.status, failure.reason, failure.requestId, reason] : String(failure),
  webhook: [verifyWebhook('whsec_consumer', body, header).ok, verifyWebhook('whsec_consumer', Buffer.concat([body, Buffer.from(' ')]), header).ok],
  sent,
}));

// Never called: each line must be a compile error, or the types have decayed to \`any\`.
export function refusedByTheTypes(p: Pinkas) {
  // @ts-expect-error a misspelt path
  void p.get('/v1/busineses');
  // @ts-expect-error a wrong field type
  void p.post('/v1/businesses', { body: { name: 1, taxId: '516179157', dealerType: 'company' } });
  // @ts-expect-error an unknown property
  void p.post('/v1/businesses', { body: { name: 'x', taxId: '516179157', dealerType: 'company', colour: 'red' } });
}
`;

describe('the SDK as a package (npm run sdk:pack)', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'pinkas-sdk-package-'));
  const project = path.join(scratch, 'project');
  let tarball: string;
  let typeErrors: string;

  beforeAll(async () => {
    tarball = await packSdk(path.join(scratch, 'pack'));
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
    // From npm's cache when it holds the SDK's two dependencies (the root's npm ci puts them there).
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project });
    readmeBlocks.forEach((code, i) => writeFileSync(path.join(project, `readme-${i + 1}.ts`), code));
    writeFileSync(path.join(project, 'consumer.ts'), CONSUMER);
    const compilerOptions = {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      // TypeScript and Node's types are the repository's: only the SDK and its dependencies are installed.
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      outDir: 'out',
    };
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    typeErrors = await run(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd: project }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout || String(e),
    );
  }, 240_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('packs the built JavaScript and declarations, and installs with its dependencies', async () => {
    expect(path.basename(tarball)).toMatch(/^pinkas-sdk-\d+\.\d+\.\d+\.tgz$/);
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n');
    for (const f of ['index.js', 'index.d.ts', 'client.js', 'webhooks.d.ts', 'generated/schema.d.ts']) expect(files).toContain(`package/dist/${f}`);
    expect(files.filter((f) => f.includes('scripts/') || f.endsWith('tsconfig.build.json'))).toEqual([]);
    for (const dep of ['@pinkas/sdk', 'openapi-fetch', 'openapi-typescript-helpers']) {
      expect(JSON.parse(readFileSync(path.join(project, 'node_modules', dep, 'package.json'), 'utf8')).name).toBe(dep);
    }
  });

  it('the README shows install, an own Idempotency-Key, all(), requestId and webhook verification', () => {
    expect(README).toContain('npm run sdk:pack');
    expect(README).toMatch(/npm install \S+pinkas-sdk-[\d.]+\.tgz/);
    for (const shown of ["'idempotency-key'", '.all(', '.requestId', 'verifyWebhook(']) expect(readmeBlocks.some((code) => code.includes(shown))).toBe(true);
  });

  it('type-checks every ts block of the README and a consumer against the installed package under --strict', () => {
    expect(readmeBlocks.length).toBeGreaterThanOrEqual(5);
    expect(typeErrors).toBe('');
  });

  it('runs the packed JavaScript: the own key is sent, all() follows the cursor, errors carry requestId, webhooks verify', async () => {
    expect(typeErrors).toBe('');
    const { stdout } = await run(process.execPath, [path.join(project, 'out/consumer.js')], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      mode: 'sandbox',
      created: ['doc_1', true],
      ids: ['d3', 'd2', 'd1'],
      failure: [404, 'not_found', 'req_42', 'not_found'],
      webhook: [true, false],
      sent: [
        'POST /v1/businesses/biz_1/documents order-1042',
        'GET /v1/businesses/biz_1/documents?take=2 -',
        'GET /v1/businesses/biz_1/documents?take=2&cursor=c1 -',
        'GET /v1/businesses/biz_nope -',
      ],
    });
  });
});
