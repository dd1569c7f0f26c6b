/**
 * The whole service in this process on a real port, for clients that speak HTTP: fresh databases,
 * a sandbox key with the lifecycle's scopes, and the PDF render job running every 100 ms (the
 * server's own workers are not started in tests).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { renderRunner } from '../prints/helpers.ts';

export interface LiveApi {
  env: TestEnv;
  baseUrl: string;
  /** bk_test_… with businesses, documents, expenses and export scopes. */
  key: string;
  close(): Promise<void>;
}

export async function startLiveApi(): Promise<LiveApi> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-clients-data-'));
  const env = await createTestEnv({ env: { DATA_DIR: dataDir } });
  const account = await env.account();
  const key = (await account.mint({ mode: 'test', scopes: ['businesses', 'documents', 'expenses', 'export'] })).secret;
  const address = await env.app.listen({ port: 0, host: '127.0.0.1' });
  const runner = renderRunner(env);
  let rendering: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    rendering = rendering.then(() => runner.runDue('sandbox')).catch(() => undefined);
  }, 100);
  return {
    env,
    baseUrl: address,
    key,
    close: async () => {
      clearInterval(timer);
      await rendering;
      await env.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
