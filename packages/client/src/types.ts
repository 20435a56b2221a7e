// Type-level views of the generated `paths`: which operations list, which stream, and what they return.
// Everything is derived from @persona-api/types, so an operation added to the contract is covered here
// by the next build.
import type { paths } from '@persona-api/types';
import type { FetchOptions } from 'openapi-fetch';
import type { OkStatus, OperationRequestBodyContent, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';

/** The HTTP methods the contract uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type PathsFor<M extends Method> = PathsWithMethod<paths, M>;

/** The generated operation object of a path and method. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/**
 * The options of a call: `params` (path, query, header), `body`, and the `RequestInit` fields (`signal`…).
 * `parseAs` is left out: every operation's 2xx body is JSON, and `data` is typed as such.
 */
export type RequestInitFor<P extends keyof paths, M extends Method> = Omit<FetchOptions<Operation<P, M>>, 'parseAs'>;

/**
 * The options argument is optional exactly when nothing in it is required (openapi-fetch's rule). It is
 * not a type parameter of the call, so TypeScript checks object literals for excess (misspelt) fields.
 */
export type InitArgs<Init> = RequiredKeysOf<Init> extends never ? [init?: Init] : [init: Init];

type SuccessBody<Res> = Res extends { content: { 'application/json': infer Json } }
  ? Json
  : Res extends { content: infer Content }
    ? Content[keyof Content]
    : undefined;

/** The body of an operation's 2xx response: its `application/json` content when it has one. */
export type SuccessJson<Op> = Op extends { responses: infer Responses } ? SuccessBody<Responses[keyof Responses & OkStatus]> : never;

/** What a call resolves to: the 2xx body, the Response and its request id. */
export interface ApiResult<Data> {
  data: Data;
  response: Response;
  /** The server's `X-Request-Id`. */
  requestId: string | null;
}

/** A typed method of the client (`client.GET`, `client.POST`…): throws `ApiError` on a non-2xx answer. */
export type ClientMethod<M extends Method> = <P extends PathsFor<M>>(
  path: P,
  ...init: InitArgs<RequestInitFor<P, M>>
) => Promise<ApiResult<SuccessJson<Operation<P, M>>>>;

// ---- Pagination ----------------------------------------------------------------------------------

/** A page as every list operation returns it. */
export interface CursorPage<Item = unknown> {
  object: 'list';
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}

type QueryOf<P extends keyof paths> = Operation<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** `keyof never` is every key: an operation without a query must not count as having `cursor`. */
type HasKey<T, K extends PropertyKey> = [T] extends [never] ? false : K extends keyof T ? true : false;

/** The cursor page of a list response: the response itself, or its one property that is a page (a folder's `files`). */
export type PageIn<Body> = Body extends CursorPage
  ? Body
  : { [K in keyof Body]-?: NonNullable<Body[K]> extends CursorPage ? NonNullable<Body[K]> : never }[keyof Body];

/** GET paths that take a `cursor` and return a cursor page (or carry one): the list operations. */
export type ListPath = {
  [P in PathsFor<'get'>]: HasKey<QueryOf<P>, 'cursor'> extends true ? ([PageIn<SuccessJson<Operation<P, 'get'>>>] extends [never] ? never : P) : never;
}[PathsFor<'get'>];

/** The 2xx body of a list operation (usually the page itself). */
export type ListResponse<P extends ListPath> = SuccessJson<Operation<P, 'get'>>;
export type ListPage<P extends ListPath> = PageIn<ListResponse<P>>;
export type ListItem<P extends ListPath> = ListPage<P> extends { data: (infer Item)[] } ? Item : never;

/** The options of a list call; the paginator sets `cursor` on the pages after the first. */
export type ListInit<P extends ListPath> = RequestInitFor<P, 'get'>;

// ---- Streaming -----------------------------------------------------------------------------------

type StreamContent<P extends keyof paths> = Operation<P, 'post'> extends { responses: { 200: { content: { 'text/event-stream': infer E } } } } ? E : never;

/** POST paths whose 200 response can be a `text/event-stream`: the streaming operations. */
export type StreamPath = {
  [P in PathsFor<'post'>]: [StreamContent<P>] extends [never] ? never : P;
}[PathsFor<'post'>];

/** Stream payloads that report an error; the stream throws them as `ApiError` instead of yielding them. */
export type StreamErrorPayload = { type: 'error' } | { error: unknown };

/** The events a stream yields: the contract's event union for the operation, less its error payloads. */
export type StreamEvent<P extends StreamPath> = Exclude<StreamContent<P>, StreamErrorPayload>;

/** What the stream's `finalResponse()` resolves to: the same object the non-streamed call returns. */
export type StreamFinal<P extends StreamPath> = SuccessJson<Operation<P, 'post'>>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The request body of a streaming call: the operation's body without `stream`, which the client sets. */
export type StreamBody<P extends StreamPath> = DistributiveOmit<NonNullable<OperationRequestBodyContent<Operation<P, 'post'>>>, 'stream'>;

export type StreamInit<P extends StreamPath> = Omit<FetchOptions<Operation<P, 'post'>>, 'body' | 'parseAs'> & {
  body: StreamBody<P>;
};
