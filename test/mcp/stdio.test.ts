import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { issueThroughTools, listeningServer } from './helpers.ts';
import { nodeEntry } from '../helpers/entry-bundle.ts';

// `pinkas mcp` as an MCP client starts it: a child process on stdio, relaying to this test's listening server.
const server = listeningServer();

describe('MCP over stdio (pinkas mcp)', () => {
  const cliEnv = () => ({ PATH: process.env.PATH ?? '', PINKAS_URL: server.origin, PINKAS_API_KEY: server.account.test });

  it('serves the same tools to a client that starts it, and issues a document', async () => {
    const client = new Client({ name: 'pinkas-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...nodeEntry('src/cli/main.ts'), 'mcp'],
      env: cliEnv(),
      stderr: 'pipe',
    });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('issueDocument');
    const { document } = await issueThroughTools(client, 'stdio');
    expect(document).toMatchObject({ status: 'issued', docNumber: 1 });
    await client.close();
  }, 120_000);

  it('without a key, or with a key the server refuses, says so on stderr and exits non-zero', async () => {
    // Not spawnSync: the server answering the child runs in this process.
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [...nodeEntry('src/cli/main.ts'), 'mcp'], { env, timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
        child.stdin?.end();
      });
    const noKey = await run({ ...cliEnv(), PINKAS_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('PINKAS_API_KEY');
    const badKey = await run({ ...cliEnv(), PINKAS_API_KEY: 'bk_test_00000000000000000000000000000000' });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain(`could not open ${server.origin}/mcp`);
    expect(badKey.stdout).toBe('');
  }, 120_000);
});
