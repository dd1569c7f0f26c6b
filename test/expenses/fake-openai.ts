import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server speaking the OpenAI chat-completions protocol: it records each request and
 * answers with what the test queued (a real-format completion, an HTTP error, or garbage).
 */
export type FakeAnswer =
  | { kind: 'json'; content: unknown }
  | { kind: 'raw-content'; content: string }
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'garbage' }
  | { kind: 'hang' };

export class FakeChatCompletions {
  readonly requests: { headers: IncomingMessage['headers']; url: string; body: any }[] = [];
  private queue: FakeAnswer[] = [];
  private server: Server;
  private hanging: (() => void)[] = [];

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<FakeChatCompletions> {
    let fake!: FakeChatCompletions;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = null;
        }
        fake.requests.push({ headers: req.headers, url: req.url ?? '', body });
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const answer = fake.queue.shift() ?? { kind: 'status', status: 500 };
        if (answer.kind === 'hang') {
          fake.hanging.push(() => res.destroy());
          return;
        }
        if (answer.kind === 'status') {
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(answer.body ?? JSON.stringify({ error: { message: 'upstream trouble', type: 'server_error' } }));
          return;
        }
        if (answer.kind === 'garbage') {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
          return;
        }
        const content = answer.kind === 'json' ? JSON.stringify(answer.content) : answer.content;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: 1767225600,
            model: (body as { model?: string } | null)?.model ?? 'unknown',
            choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
            usage: { prompt_tokens: 900, completion_tokens: 80, total_tokens: 980 },
          }),
        );
      });
    });
    fake = new FakeChatCompletions(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  answer(a: FakeAnswer): void {
    this.queue.push(a);
  }

  async close(): Promise<void> {
    for (const h of this.hanging) h();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
