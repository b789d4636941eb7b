import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, say), for a spec that takes that server away from
 * the service under test while it runs, the way an outage does:
 * - `refuse()`: the server is gone. Every connection through the proxy is cut, and nothing listens at the proxy's
 *   port any more: a new connection is refused (ECONNREFUSED).
 * - `hang()`: the server stops answering (a network partition, a frozen host). Connections through the proxy stay
 *   open but nothing goes through them any more, either way; a new connection is accepted and never answered.
 * `close()` cuts every connection and stops listening.
 */
export interface TcpProxy {
  /** The proxy's port: give it to the service instead of the server's. */
  port: number;
  refuse(): Promise<void>;
  hang(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'forward' | 'hang' = 'forward';
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A connection cut under the service (or the server) is what is simulated, not an error of the spec.
    socket.on('error', () => undefined);
  };
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'hang') return; // accepted, never answered: what it sends is left unread
    const upstream = connect(target.port, target.host);
    track(upstream);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const cut = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', cut);
    upstream.on('close', cut);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the proxy has no port');
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    port: address.port,
    async refuse() {
      const closed = stopListening();
      cutAll();
      await closed;
    },
    hang() {
      mode = 'hang';
      // Nothing more goes through the open connections, either way: unpiped and paused, what arrives stays unread.
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    async close() {
      const closed = stopListening();
      cutAll();
      await closed;
    },
  };
}
