// Types of ./document.js, exported as `@persona-api/openapi/document`. Hand-written: this package has no
// TypeScript build (like ./contract-ajv.d.ts).
import type { OpenAPIV3_1 } from 'openapi-types';

export type OpenApiDocument = OpenAPIV3_1.Document;
export type OperationObject = OpenAPIV3_1.OperationObject;
export type ParameterObject = OpenAPIV3_1.ParameterObject;
export type RequestBodyObject = OpenAPIV3_1.RequestBodyObject;
export type ResponseObject = OpenAPIV3_1.ResponseObject;
export type ExampleObject = OpenAPIV3_1.ExampleObject;

export declare const HTTP_METHODS: readonly ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
export type HttpMethod = (typeof HTTP_METHODS)[number];
export declare const EVENT_STREAM: 'text/event-stream';

/** Path of the bundle this package builds (openapi/dist/openapi.json). */
export declare function bundlePath(): string;
/** The parsed bundle (default: this package's build). */
export declare function loadBundle(path?: string): OpenApiDocument;
/** `/api/v1` from the first server URL; '' when there is none. */
export declare function basePath(document: { servers?: { url: string }[] }): string;

/** One operation of the contract, as `listOperations` lists them. */
export interface SpecOperation {
  method: HttpMethod;
  /** The templated path, e.g. `/workspaces/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  /** The operation object as written in the bundle (refs intact). */
  operation: OperationObject;
  /** Path-item and operation parameters merged (operation level wins), dereferenced. */
  parameters: ParameterObject[];
  requestBody?: RequestBodyObject;
  /** Responses by status, dereferenced. */
  responses: Record<string, ResponseObject>;
  /** The 200 response can be a Server-Sent Events stream. */
  streaming: boolean;
  /** False where the operation overrides security with `[]` / `[{}]`. */
  requiresApiKey: boolean;
}

export declare function listOperations(document: OpenApiDocument): SpecOperation[];
export declare function listStreamingOperations(document: OpenApiDocument): SpecOperation[];

/** The target of a value that may be a `$ref` (followed to the end); throws on a ref that resolves to nothing. */
export declare function deref<T>(document: object, value: T | OpenAPIV3_1.ReferenceObject): T;
/** Follows a chain of refs; `path` becomes the location of the target when a ref was followed. */
export declare function derefAt<P extends readonly (string | number)[] | undefined>(
  document: object,
  node: unknown,
  path: P,
): { node: unknown; path: P | string[] };
export declare function resolvePointer(document: object, ref: string): unknown;
export declare function refToPath(ref: string): string[];
/** A JSON pointer without `#` (`/paths/~1workspaces/get`) from path segments. */
export declare function pathToPointer(path: readonly (string | number)[]): string;

export interface WalkedOperation {
  pathKey: string;
  method: HttpMethod;
  operation: Record<string, any>;
  pathItem: Record<string, any>;
  /** Location of the operation in the document. */
  path: (string | number)[];
  itemPath: (string | number)[];
}
/** Every operation with its location, leniently (for rules that run on documents that may be broken). */
export declare function walkOperations(document: object): Generator<WalkedOperation>;
export declare function operationParameters(
  document: object,
  operation: WalkedOperation,
): { parameter: Record<string, any>; path: (string | number)[] }[];

export declare function isObject(value: unknown): value is Record<string, any>;
export declare function isJsonMediaType(mediaType: string): boolean;
export declare function requiresApiKey(document: { security?: object[] }, operation: { security?: object[] }): boolean;
export declare function pathMatcher(templatedPath: string): RegExp;
/** The named `text/event-stream` examples (complete SSE transcripts) of an operation's 200 response. */
export declare function streamTranscripts(document: OpenApiDocument, operation: OperationObject): Map<string, string>;

export interface ExampleRequest {
  operationId: string;
  summary: string;
  method: HttpMethod;
  /** The spec's templated path, e.g. `/workspaces/{id}`. */
  path: string;
  /** Concrete path and query string relative to the base URL, e.g. `/workspaces/ws_1?limit=10`. */
  url: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  /** Required header parameters (never Authorization). */
  headers: Record<string, string>;
  /** The same parameter values before they became strings (typed, for code samples). */
  values: { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, unknown> };
  /** JSON bodies are values; other media types (an upload's bytes) are text. */
  body?: { contentType: string; value: unknown };
  /** Every named example of the JSON body (a streaming operation has a streamed and a plain one). */
  bodyExamples: Array<{ name: string; value: unknown }>;
  /** False where the operation overrides security with `[]` / `[{}]` (the signed upload URL). */
  requiresApiKey: boolean;
  /**
   * Example credentials of the operation's apiKey security schemes sent in a header or a cookie (the console's
   * session cookie and CSRF header), as headers (`Cookie`, `X-CSRF-Token`); empty for bearer-only operations.
   * Sent together with the bearer key by whoever sends the request "with its credentials".
   */
  credentials: Record<string, string>;
}

/** The success example of an operation, when it is JSON. */
export declare function successExample(document: OpenApiDocument, operation: OperationObject): unknown;
export declare function exampleRequest(
  document: OpenApiDocument,
  operation: Pick<SpecOperation, 'method' | 'path' | 'operation'>,
): ExampleRequest;
/** One concrete request per operation, built only from the spec's examples (and seeded values where it has none). */
export declare function exampleRequests(document: OpenApiDocument): ExampleRequest[];
