export { createClient, type ClientOptions, type PersonaClient } from './client.js';
export { ApiConnectionError, ApiError, ApiTimeoutError, PersonaApiError, StreamError } from './errors.js';
export { Paginator } from './pagination.js';
export { EventStream } from './streaming.js';
export type { RetryInfo } from './transport.js';
export type {
  ApiResult,
  CursorPage,
  ListItem,
  ListPage,
  ListPath,
  ListResponse,
  Method,
  StreamBody,
  StreamEvent,
  StreamFinal,
  StreamPath,
} from './types.js';
export type * from '@persona-api/types';
