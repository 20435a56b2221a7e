import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible speech-to-text server (verbose_json with segment times).
 * `bodies` records each request as `METHOD URL AUTHORIZATION\n<multipart body as latin1>`.
 */
export async function fakeSpeechToText(
  answer: (body: string) => { status: number; json: unknown },
): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('latin1');
      bodies.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}\n${body}`);
      const { status, json } = answer(body);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, server };
}
