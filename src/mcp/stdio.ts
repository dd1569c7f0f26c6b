import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface StdioOptions {
  /** The pinkas server's origin, e.g. http://localhost:3000. */
  url: string;
  key: string;
}

/**
 * `pinkas mcp`: the server's `/mcp` tools on stdin/stdout, for MCP clients that start a local process.
 * It relays tools/list and tools/call to the running server with the key, so the tools, what the
 * key's scopes allow and every answer are the server's own; nothing is described twice. Returns when
 * stdin closes (the client went away).
 */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const client = new Client({ name: 'pinkas-mcp-stdio', version: '1.0.0' });
  const upstream = new StreamableHTTPClientTransport(new URL('/mcp', options.url), {
    requestInit: { headers: { authorization: `Bearer ${options.key}` } },
  });
  try {
    await client.connect(upstream);
  } catch (err) {
    throw new Error(`could not open ${new URL('/mcp', options.url).href} with the key: ${(err as Error).message}`);
  }
  // Its name, version and instructions are the server's, as a client connected to /mcp would see them.
  const server = new Server(client.getServerVersion() ?? { name: 'pinkas', version: '1.0.0' }, {
    capabilities: { tools: {} },
    instructions: client.getInstructions(),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request) => (await client.callTool(request.params)) as CallToolResult);
  const ended = once(process.stdin, 'end');
  await server.connect(new StdioServerTransport());
  try {
    await ended;
  } finally {
    await server.close();
    await client.close();
  }
}
