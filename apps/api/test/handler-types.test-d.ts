import { expectTypeOf, test } from 'vitest';
import type { Handler, HandlerMap, QueryParams, RequestBody, SuccessBody } from '../src/contract/handler-types.js';
import { type BuiltHandlers, handlers, type NotBuiltGuard, notBuiltGuard, notImplemented } from '../src/resources/index.js';

// Issue: "a missing handler, a wrong parameter name or a response body that does not match the spec
// is a tsc error". Each @ts-expect-error below fails the run if the error it expects goes away.

test('the handler map has exactly one entry per operation of the contract', () => {
  expectTypeOf(handlers).toExtend<HandlerMap>();

  const { getUsage: _removed, ...withoutOne } = handlers;
  // @ts-expect-error a missing handler
  const incomplete: HandlerMap = withoutOne;

  const extra = {
    ...handlers,
    // @ts-expect-error an operation the contract does not have
    getEverything: notImplemented,
  } satisfies HandlerMap;
  void incomplete;
  void extra;
});

test('parameters and bodies are typed from the contract', () => {
  expectTypeOf<QueryParams<'listWorkspaces'>>().toHaveProperty('include_members');
  expectTypeOf<RequestBody<'createWorkspace'>>().toHaveProperty('name').toEqualTypeOf<string>();

  const wrongPathParam: Handler<'getWorkspace'> = async ({ params }) => {
    // @ts-expect-error the path parameter is `id`, not `workspace_id`
    void params.workspace_id;
    throw new Error('unreachable');
  };
  const wrongBodyField: Handler<'updateProject'> = async ({ body }) => {
    // @ts-expect-error misspelt body field
    void body.budgetAlert;
    throw new Error('unreachable');
  };
  const wrongQuery: Handler<'listProjects'> = async ({ query }) => {
    // @ts-expect-error listProjects has no `status` filter
    void query.status;
    throw new Error('unreachable');
  };
  void [wrongPathParam, wrongBodyField, wrongQuery];
});

test('a success body must match the 200 schema', () => {
  expectTypeOf<SuccessBody<'deleteProject'>>().toHaveProperty('deleted');

  // @ts-expect-error required fields of Project are missing
  const missingFields: Handler<'getProject'> = async () => ({ id: 'proj_1', object: 'project', name: 'x' });
  // @ts-expect-error `deleted` is the constant true
  const wrongType: Handler<'deleteWorkspace'> = async ({ params }) => ({ id: params.id, object: 'workspace', deleted: 'yes' });
  // @ts-expect-error `object` must be one of the documented values
  const wrongObject: Handler<'deleteWorkspace'> = async ({ params }) => ({ id: params.id, object: 'workspaces', deleted: true });
  const right: Handler<'deleteWorkspace'> = async ({ params }) => ({ id: params.id, object: 'workspace', deleted: true });
  void [missingFields, wrongType, wrongObject, right];
});

test('an operation a module builds cannot stay in notBuilt (issue 24)', () => {
  // The guard of resources/index.ts holds for the real lists.
  expectTypeOf(notBuiltGuard).toEqualTypeOf<true>();
  const nothingLeft: NotBuiltGuard<Record<never, never>, BuiltHandlers> = true;
  // @ts-expect-error chatWithVideoAnalysis is built by the video-analyses module, so listing it as not built fails
  const builtTwice: NotBuiltGuard<{ chatWithVideoAnalysis: typeof notImplemented }, BuiltHandlers> = true;
  // @ts-expect-error one stale entry among unknown ones is enough
  const oneStale: NotBuiltGuard<{ notAnOperation: typeof notImplemented; getUsage: typeof notImplemented }, BuiltHandlers> = true;
  expectTypeOf<NotBuiltGuard<{ chatWithVideoAnalysis: typeof notImplemented }, BuiltHandlers>>().toEqualTypeOf<{
    builtByAModuleAndStillInNotBuilt: 'chatWithVideoAnalysis';
  }>();
  void [nothingLeft, builtTwice, oneStale];
});
