// The server as a library: for the packages that add handlers (model engines, AI operations), the
// bench, and embedding. `pnpm start` runs src/main.ts.
export { buildApp, BODY_LIMIT_BYTES, type AppOptions } from './app.js';
export { startServer, createLogger, type RunningServer } from './server.js';
export { loadConfig, ConfigError, type Config } from './config.js';
export { openDatabase, type Database, type DatabaseHandle, type Executor, type Transaction } from './db/client.js';
export { openConfiguredDatabase } from './db/open.js';
export * as schema from './db/schema/index.js';
export { STREAMED, type Handler, type HandlerInput, type HandlerMap, type OperationId, type SuccessBody } from './contract/handler-types.js';
export { handlers, notImplemented } from './handlers/index.js';
export type { RequestContext, RequestMeter } from './http/context.js';
export { ApiError, errors, type ErrorCode, type ErrorType } from './http/errors.js';
export { clientDisconnectSignal, openEventStream, type EventStream } from './http/sse.js';
export { MemoryRateLimiter, RedisRateLimiter, type RateLimiter, type RateLimitDecision } from './http/rate-limit.js';
export {
  billingPeriod,
  budgetAlertHeader,
  chargeCredits,
  checkCredits,
  grantCredits,
  grantCreditsIn,
  type ChargeRequest,
  type ChargeResult,
  type Pricing,
} from './billing/credits.js';
export { keyset, toPage, encodeCursor, decodeCursor, containsPattern, type Page, type PageRequest } from './lib/pagination.js';
export { newId } from './lib/ids.js';
export { requireMembership, requireRole } from './workspaces/access.js';
export { can, type Action, type WorkspaceRole } from './workspaces/roles.js';
export { createAccount, createApiKey, createWorkspaceFor, revokeApiKey, bootstrapIfEmpty } from './admin/accounts.js';
// Model calls (responses, chat, and the AI operations of later issues).
export { prepareModelCall, settleModelCall, apiErrorOf, usageOfCutStream, budgetAlertBeforeStream, type PreparedCall } from './ai/model-call.js';
export { startEngineStream, openModelStream, drainEngineStream, type OpenedModelStream } from './ai/engine-stream.js';
export { ResponseEventWriter, responseObject, responseUsage, outputOf } from './ai/responses/output.js';
export { findPersona, enginePersonaOf, personaForCall, toPersona, toCustomPersona } from './ai/personas.js';
export { defaultWorkspace } from './workspaces/access.js';
