/**
 * What one request costs the server's event loop, by kind (issue 28): a server started as `npm start`
 * starts it (its own process, on scratch databases of TEST_DATABASE_URL), 16 requests in flight from
 * this process, and the event-loop thread's CPU time (/proc) around each kind. `GET /healthz` is the
 * framework and Node's HTTP alone; a cached `GET /v1/businesses/{id}` adds the API's hooks
 * (authentication, rate limit, request log, metrics) and one read; a draft and an issue are the
 * issue bench's two requests (the issue's share of its PDF's render job included).
 *
 *   npx tsx bench/issue/request-cost.ts        REQUEST_COST_N=3000 for more requests a kind,
 *                                              REQUEST_COST_KINDS=business,draft for some of healthz, business, draft
 *                                              and issue (an issue measures its drafts first)
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { scratchServer } from './scratch-server.ts';

const BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const N = Number(process.env.REQUEST_COST_N ?? 1500);
const IN_FLIGHT = 16;
const KINDS = new Set((process.env.REQUEST_COST_KINDS ?? 'healthz,business,draft,issue').split(','));
// Each business issues at most 250 (the daily allowance is 300).
const BUSINESSES = KINDS.has('draft') || KINDS.has('issue') ? Math.ceil((N + 200) / 250) : 8;
const scratch = await scratchServer(BASE, 'reqcost');
const { server } = scratch;
try {
  const key = server.firstKey()!;
  const target = new URL(server.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const call = (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      const headers: http.OutgoingHttpHeaders = { 'x-api-key': key };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      const req = http.request({ host: target.hostname, port: target.port, path, method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body);
  };
  /** CPU ms of the server's event-loop thread so far (utime + stime, clock ticks of 10 ms). */
  const loopMs = () => {
    const f = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
  };
  async function measure(kind: string, task: (i: number) => Promise<unknown>) {
    for (let i = 0; i < 200; i++) await task(i); // warm-up, one at a time
    let next = 0;
    const cpu0 = loopMs();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < N) await task(200 + next++);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = loopMs();
    const user = (cpu1.user - cpu0.user) / N;
    const system = (cpu1.system - cpu0.system) / N;
    console.log(
      `${kind.padEnd(40)} ${(user + system).toFixed(3)} ms of event loop a request (${user.toFixed(3)} user, ${system.toFixed(3)} system)   ${Math.round(N / seconds)}/s`,
    );
  }

  const businessIds: string[] = [];
  for (let b = 0; b < BUSINESSES; b++)
    businessIds.push((await ok('POST', '/v1/businesses', { name: `bench ${b}`, taxId: '516179157', dealerType: 'company' })).business.id);
  const draftBody = (i: number) => ({
    docType: 320,
    party: { name: `לקוח ${i}` },
    lines: [
      { description: 'שירות', quantity: 1, unitPriceExVat: 10_000 + (i % 997) },
      { description: 'חלקים', quantity: 2.5, unitPriceExVat: 3_333 },
    ],
    payments: [{ method: 'card', amount: Math.round((10_000 + (i % 997) + 8_333) * 1.18) }],
  });
  console.log(`request cost: ${N} requests a kind, ${IN_FLIGHT} in flight, ${new Date().toISOString().slice(0, 10)}`);
  if (KINDS.has('healthz')) await measure('GET /healthz', () => ok('GET', '/healthz'));
  if (KINDS.has('business')) await measure('GET /v1/businesses/{id} (cached)', (i) => ok('GET', `/v1/businesses/${businessIds[i % BUSINESSES]}`));
  const drafts: string[] = [];
  if (KINDS.has('draft') || KINDS.has('issue'))
    await measure('POST …/documents (draft)', async (i) => {
      const bid = businessIds[i % BUSINESSES];
      drafts.push(`${bid}/documents/${(await ok('POST', `/v1/businesses/${bid}/documents`, draftBody(i))).document.id}`);
    });
  if (KINDS.has('issue')) await measure('POST …/documents/{id}/issue', (i) => ok('POST', `/v1/businesses/${drafts[i]}/issue`));
} finally {
  await scratch.close();
}
