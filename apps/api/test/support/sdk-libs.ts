import type { AddressInfo } from 'node:net';
import type { FakeReply, FakeUpstream } from '@persona-api/engine/testing';
import { fakeUpstreamEngine, SwitchableEngine } from './ai.js';
import { Harness, type Tenant } from './harness.js';

// Shared set-up of the library tests (sdk-openai, sdk-ai, sdk-langchain): one listening server per file,
// on the offline engine or on the OpenAI-compatible engine pointed at the fake upstream. The libraries
// get only a base URL, a key and the Persona-Id header: no custom fetch, no extra body fields.

export const PERSONA = 'persona_marketing_vp_scaleup';
export type EngineName = 'offline' | 'upstream';
export const ENGINES: EngineName[] = ['offline', 'upstream'];

export interface LibServer {
  h: Harness;
  t: Tenant;
  baseURL: string;
  fake: FakeUpstream;
  /** Runs `body` with the named engine serving. */
  on<T>(engine: EngineName, body: () => Promise<T>): Promise<T>;
  /** Scripted upstream replies for the next calls (ignored on the offline engine, which decides by itself). */
  script(engine: EngineName, ...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export async function startLibServer(): Promise<LibServer> {
  const started = await fakeUpstreamEngine({ timeoutMs: 10_000 });
  const engine = new SwitchableEngine();
  const h = await Harness.create({ engine });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const baseURL = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1`;
  const t = await h.tenant({ credits: 1_000_000 });
  return {
    h,
    t,
    baseURL,
    fake: started.fake,
    on: (name, body) => (name === 'upstream' ? engine.using(started.engine, body) : body()),
    script: (name, ...replies) => {
      if (name === 'upstream') started.fake.enqueue(...replies);
    },
    close: async () => {
      await h.close();
      await started.fake.close();
    },
  };
}

/** The requests the fake upstream received since `from` (what our server sent on the caller's behalf). */
export const upstreamBodies = (server: LibServer, from: number) => server.fake.requests.slice(from).map((request) => request.body);
