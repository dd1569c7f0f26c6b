/** The MCP server's public surface (ARCHITECTURE.md): the `/mcp` route. */
export { collectOperations } from './operations.ts';
export { registerMcpRoutes } from './http.ts';
