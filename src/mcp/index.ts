/** The MCP server's public surface (ARCHITECTURE.md): the `/mcp` route and the stdio relay of `pinkas mcp`. */
export { collectOperations } from './operations.ts';
export { registerMcpRoutes } from './http.ts';
export { serveStdio } from './stdio.ts';
