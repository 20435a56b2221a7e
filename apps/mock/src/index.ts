import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createFront } from './front.js';
import { startPrism, type PrismLogLevel } from './prism.js';
import { bundlePath, loadBundle } from '@persona-api/openapi/document';

// The spec walking lives in @persona-api/openapi/document; re-exported for code that imports it from here.
export {
  deref,
  exampleRequest,
  exampleRequests,
  isJsonMediaType,
  listOperations,
  listStreamingOperations,
  loadBundle,
  requiresApiKey,
  streamTranscripts,
  successExample,
  type ExampleRequest,
  type OpenApiDocument,
  type SpecOperation,
} from '@persona-api/openapi/document';
export { splitSseTranscript } from './sse.js';

export interface MockOptions {
  /** Public port of the mock; 0 picks a free one. Default 4010. */
  port?: number;
  /** Default 127.0.0.1; `0.0.0.0` exposes the mock to other machines. */
  host?: string;
  /** Bundled spec to serve. Default: the build of @persona-api/openapi (openapi/dist/openapi.json). */
  specPath?: string;
  /** Generate data from the schemas instead of returning the spec's examples. */
  dynamic?: boolean;
  /** Seed of the dynamic data: the same seed gives the same sequence of responses after each start. */
  seed?: string;
  /** Pause between two events of a replayed stream. Default 40 ms. */
  streamDelayMs?: number;
  /** Prism's log level. Default info. */
  logLevel?: PrismLogLevel;
  /** Port of the internal Prism; 0 (default) picks a free one. */
  prismPort?: number;
}

export interface RunningMock {
  /** Base URL at the root of the spec's paths, e.g. `http://127.0.0.1:4010`; `${url}/api/v1` works too. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_SEED = '1';
export const DEFAULT_STREAM_DELAY_MS = 40;

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const specPath = options.specPath ?? bundlePath();
  const document = loadBundle(specPath);
  const prism = await startPrism({
    specPath,
    port: options.prismPort ?? 0,
    dynamic: options.dynamic ?? false,
    seed: options.seed ?? DEFAULT_SEED,
    logLevel: options.logLevel ?? 'info',
  });
  const front = createFront({
    document,
    prismUrl: prism.url,
    streamDelayMs: options.streamDelayMs ?? DEFAULT_STREAM_DELAY_MS,
  });
  const host = options.host ?? '127.0.0.1';
  try {
    front.listen(options.port ?? DEFAULT_PORT, host);
    await once(front, 'listening');
  } catch (error) {
    await prism.stop();
    throw error;
  }
  const { port } = front.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    async close() {
      front.closeAllConnections();
      await Promise.all([new Promise((resolve) => front.close(resolve)), prism.stop()]);
    },
  };
}
