// The server as a library: what the bench and an embedding program need. `pnpm start` runs src/main.ts.
export { buildApp, BODY_LIMIT_BYTES, type AppOptions } from './app.js';
export { startServer, createLogger, type RunningServer } from './server.js';
export { loadConfig, ConfigError, type Config } from './config.js';
export type { Services } from './services.js';
