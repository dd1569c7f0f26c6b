/**
 * Connections that have not sent a byte yet. Node counts such a connection busy, not idle (its request may be
 * arriving), so a closing server would wait for it until `headersTimeout` (60 s) closes it with a 408. Clients
 * open connections ahead of their requests (an HTTP agent's spare socket, a browser's or a load balancer's
 * preconnect), so a stop signal would hold the process for a minute. A connection that sent nothing carries no
 * request; closing it loses nothing.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Tracks the connections of `server` from now on; the function returned closes those that sent nothing yet. */
export function trackSilentConnections(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  };
}
