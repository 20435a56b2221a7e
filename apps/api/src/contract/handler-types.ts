import type { operations } from '@persona-api/types';
import type { RequestContext } from '../http/context.js';

/**
 * Handler types derived from the contract's generated `operations`. `HandlerMap` has one entry per
 * operationId, so tsc rejects a missing handler, a misspelt parameter or body field, and a success
 * body that does not match the spec's 200 `application/json` schema.
 */
export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K] extends { parameters: infer P } ? P : never;
type Part<P, Name extends string> = P extends { [N in Name]: infer X } ? X : P extends { [N in Name]?: infer X } ? X : never;
// `never` (no such parameters) becomes an empty object, so handlers can still destructure it.
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T;

export type PathParams<K extends OperationId> = OrEmpty<Part<Parameters<K>, 'path'>>;
export type QueryParams<K extends OperationId> = OrEmpty<NonNullable<Part<Parameters<K>, 'query'>>>;
export type HeaderParams<K extends OperationId> = OrEmpty<NonNullable<Part<Parameters<K>, 'header'>>>;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer R }
  ? JsonContent<R>
  : operations[K] extends { requestBody?: infer R }
    ? [R] extends [never]
      ? undefined
      : JsonContent<NonNullable<R>> | undefined
    : undefined;

type Responses<K extends OperationId> = operations[K] extends { responses: infer R } ? R : never;
export type SuccessBody<K extends OperationId> = JsonContent<Responses<K> extends { 200: infer S } ? S : never>;

/** Returned by a handler that wrote the response itself (an SSE stream, a file): nothing more is sent. */
export const STREAMED: unique symbol = Symbol('streamed');
export type Streamed = typeof STREAMED;

export interface HandlerInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  headers: HeaderParams<K>;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>, ctx: RequestContext) => Promise<SuccessBody<K> | Streamed>;

export type HandlerMap = { [K in OperationId]: Handler<K> };
