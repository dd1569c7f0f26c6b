import { serveStdio } from '../mcp/index.ts';

/** Where `pinkas mcp` finds the server when neither --url nor PINKAS_URL says (`npm start`'s default port). */
const DEFAULT_URL = 'http://localhost:3000';

/**
 * `pinkas mcp [--url URL]`: an MCP server on stdin/stdout for clients that start a local process.
 * Its key is PINKAS_API_KEY (an environment variable, not a flag: a flag shows in `ps`). Stdout is the
 * protocol's: everything else goes to stderr.
 */
export async function serveMcp(options: { url?: string }): Promise<number> {
  const key = process.env.PINKAS_API_KEY?.trim();
  if (!key) {
    process.stderr.write('error: set PINKAS_API_KEY to the pinkas API key the MCP client acts with\n');
    return 2;
  }
  const url = options.url ?? (process.env.PINKAS_URL || DEFAULT_URL);
  try {
    await serveStdio({ url, key });
    return 0;
  } catch (err) {
    process.stderr.write(`error: pinkas mcp: ${(err as Error).message}\n`);
    return 1;
  }
}
