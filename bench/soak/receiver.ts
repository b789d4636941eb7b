/**
 * The soak's webhook receiver: a local HTTP server the service delivers to, answering well or badly on demand (500s,
 * requests left hanging until the service times out, connections refused while it is down), and recording every
 * delivery it received so the books can tell which were attempted.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Random } from './random.js';

export interface ReceivedDelivery {
  /** The x-webhook-delivery header: the delivery's id (webhook_deliveries.id), the same on every attempt. */
  deliveryId: string;
  /** The x-webhook-type header: the event type delivered. */
  type: string;
  /** Epoch ms it arrived. */
  at: number;
  /** The status answered; 0 when it was left hanging (the service gives up after its timeout). */
  answered: number;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hooks */
  url: string;
  /** Answers from now on: 'ok' 200; 'flaky': 500 with probability p500, hangs (never answers; the service times out) with probability pHang, else 200. */
  mode(mode: 'ok' | 'flaky', p500?: number, pHang?: number): void;
  /** Stops listening (connections refused); open connections, hanging ones included, are cut. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Every delivery received (answered 200 or not), in the order received. */
  received(): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startReceiver(random: Random): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const sockets = new Set<Socket>();
  let answers = { flaky: false, p500: 0, pHang: 0 };
  let listening = false;

  /** What this request gets: 200, 500, or 0 (no answer at all). */
  const choose = (): number => {
    if (!answers.flaky) return 200;
    const draw = random.next();
    if (draw < answers.p500) return 500;
    return draw < answers.p500 + answers.pHang ? 0 : 200;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // The body is read to its end (the service waits for the answer, not for us to read), then forgotten.
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/hooks')) {
        res.writeHead(404).end();
        return;
      }
      const answered = choose();
      deliveries.push({ deliveryId: header(req, 'x-webhook-delivery'), type: header(req, 'x-webhook-type'), at: Date.now(), answered });
      if (answered) res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'failed');
      // A hanging request is left as it is: the service's own timeout closes it.
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.removeListener('error', reject);
        listening = true;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy(); // keep-alive and hanging connections would outlive close()
    });

  await listen(0);
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the webhook receiver has no port');
  const port = address.port;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    mode(mode, p500 = 0.1, pHang = 0.05) {
      answers = mode === 'ok' ? { flaky: false, p500: 0, pHang: 0 } : { flaky: true, p500, pHang };
    },
    down: stopListening,
    async up() {
      if (listening) return;
      // The port was ours a moment ago; should something else take it meanwhile, try a few times before failing.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await listen(port);
        } catch (error) {
          if (attempt >= 20) throw new Error(`the webhook receiver cannot listen on port ${port} again: ${(error as Error).message}`, { cause: error });
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    received: () => [...deliveries],
    close: stopListening,
  };
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}
