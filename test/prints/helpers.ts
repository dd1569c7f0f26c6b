import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobRunner } from '../../src/platform/jobs.ts';
import { RENDER_JOB, renderJobHandler } from '../../src/prints/render-job.ts';
import { TAX_IDS, type TestEnv } from '../helpers/env.ts';

/** A DATA_DIR of its own, so the self-signed certificate is generated and stored there. */
export function tempDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'pinkas-prints-'));
}

export const line = (over: Record<string, unknown> = {}) => ({ description: 'ייעוץ מקצועי', quantity: 2, unitPriceExVat: 10_000, ...over });

/** Creates and issues a document through the API; answers the issued Document JSON. */
export async function issueDoc(env: TestEnv, key: string, bid: string, body: Record<string, unknown> = {}): Promise<any> {
  const draft = await env.call('POST', `/v1/businesses/${bid}/documents`, {
    key,
    body: { docType: 305, party: { name: 'לקוח לדוגמה', taxId: TAX_IDS.person }, lines: [line()], ...body },
  });
  if (draft.status !== 201) throw new Error(`draft failed: ${draft.status} ${JSON.stringify(draft.body)}`);
  const issued = await env.call('POST', `/v1/businesses/${bid}/documents/${draft.body.document.id}/issue`, { key });
  if (issued.status !== 201) throw new Error(`issue failed: ${issued.status} ${JSON.stringify(issued.body)}`);
  return issued.body.document;
}

/** The render job only (the other areas' jobs are theirs to test). */
export function renderRunner(env: TestEnv): JobRunner {
  return new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, { [RENDER_JOB]: renderJobHandler(env.s) });
}

export const pdfPath = (bid: string, id: string, what: string) => `/v1/businesses/${bid}/documents/${id}/${what}`;
