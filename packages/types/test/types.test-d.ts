import { describe, expectTypeOf, it } from 'vitest';
import type { CustomPersona, ResponseObject, Workspace, WorkspaceCreateRequest, components, operations, paths } from '../src/index.js';

describe('@persona-api/types', () => {
  it('aliases are the component schemas', () => {
    expectTypeOf<Workspace>().toEqualTypeOf<components['schemas']['Workspace']>();
    expectTypeOf<CustomPersona>().toEqualTypeOf<components['schemas']['CustomPersona']>();
    expectTypeOf<ResponseObject>().toEqualTypeOf<components['schemas']['ResponseObject']>();
  });

  it('paths and operations describe the same operation', () => {
    expectTypeOf<paths['/workspaces']['post']>().toEqualTypeOf<operations['createWorkspace']>();
  });

  it('a request field with a default is optional, a required one is not', () => {
    expectTypeOf<{ name: string }>().toExtend<WorkspaceCreateRequest>();
    // @ts-expect-error `name` is required
    expectTypeOf<{ type: 'user' }>().toExtend<WorkspaceCreateRequest>();
  });
});
