import type { HandlerMap, OperationId } from '../contract/handler-types.js';
import type { Database } from '../db/client.js';
import type { JobDefinition } from '../jobs/types.js';
import type { Services } from '../services.js';

/** What the tenant-isolation walk (test/isolation.test.ts) knows about a tenant. */
export interface IsolationTenant {
  accountId: string;
  userId: string;
  email: string;
  key: string;
  apiKeyId: string;
  workspaceId: string;
}

export interface IsolationResponse {
  status: number;
  body: any;
}

/** The API as the isolation walk calls it: a path under /api/v1 and the key of the tenant calling. */
export interface IsolationClient {
  get(path: string, key: string): Promise<IsolationResponse>;
  post(path: string, key: string, body?: unknown): Promise<IsolationResponse>;
  patch(path: string, key: string, body?: unknown): Promise<IsolationResponse>;
  delete(path: string, key: string): Promise<IsolationResponse>;
  /** A raw body without an API key (the signed upload target). */
  put(path: string, body: string, headers: Record<string, string>): Promise<IsolationResponse>;
}

/** The assertions a case uses; the test passes vitest's `expect`. */
export interface IsolationAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  not: { toContain(item: unknown): void };
}

export interface IsolationKit {
  api: IsolationClient;
  expect(actual: unknown): IsolationAssertion;
  /** The response is the 404 `resource_not_found` naming `param` (default `id`): another tenant's id is unknown. */
  notFound(response: IsolationResponse, param?: string): void;
}

/**
 * Tenant A owns data, tenant B tries to see or change it. `a.workspaceId` has A's `aMember` as an
 * editor, and `ids` the rows the modules' `isolationSeed`s made in A's workspace.
 */
export interface IsolationFixture {
  a: IsolationTenant;
  b: IsolationTenant;
  aMember: IsolationTenant;
  ids: Record<string, string>;
}

/** One operation called with B's key: it must see and change nothing of A's. */
export type IsolationCase = (kit: IsolationKit, fixture: IsolationFixture) => Promise<void>;

/** Makes rows in A's workspace for the cases to aim at; returns their ids by name. */
export type IsolationSeed = (context: { api: IsolationClient; db: Database; a: IsolationTenant; now: Date }) => Promise<Record<string, string>>;

/**
 * One resource of the contract (a tag): its slice of the handler map, a tenant-isolation case per
 * operation (typed, so an operation without one is a tsc error; test/isolation.test.ts walks them all),
 * and, for resources with work that outlives a request, its job kinds. resources/index.ts composes them.
 */
export interface ResourceModule<Operation extends OperationId = OperationId> {
  /** The contract tag (openapi.yaml `tags`). */
  tag: string;
  handlers: Pick<HandlerMap, Operation>;
  isolation: { [Op in Operation]: IsolationCase };
  isolationSeed?: IsolationSeed;
  /** Its job kinds, built with the same services the handlers get (for the API process and `pnpm worker`). */
  jobs?: (services: Services) => readonly JobDefinition<any>[];
}

/** Types a module: `export const projects = resourceModule({ tag, handlers: {...}, isolation: {...} })`. */
export const resourceModule = <Operation extends OperationId>(module: ResourceModule<Operation>): ResourceModule<Operation> => module;
