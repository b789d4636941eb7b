import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';

/** One request exactly as sent: the path is not normalized (`..` and percent-encoded junk reach the server as is). */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Raw body text (JSON or not); absent: no body. */
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A request that takes longer than this is a hang: the property fails with the request as its counterexample. */
const HANG_MS = 20_000;

/** Sends raw requests to the app over a real socket (the app must be listening), one keep-alive connection pool. */
export class RawClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly port: number;

  constructor(app: INestApplication) {
    this.port = (app.getHttpServer().address() as AddressInfo).port;
  }

  send(req: RawRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const outgoing = http.request({ host: '127.0.0.1', port: this.port, method: req.method, path: req.path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text.length ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      outgoing.setTimeout(HANG_MS, () => outgoing.destroy(new Error(`no answer within ${HANG_MS} ms (hang)`)));
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
