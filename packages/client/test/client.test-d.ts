import type { OperationRequestBodyContent } from 'openapi-typescript-helpers';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createClient,
  type ChatCompletion,
  type ChatCompletionChunk,
  type EventStream,
  type ListItem,
  type ListPath,
  type StreamEvent,
  type StreamFinal,
  type StreamPath,
  type Workspace,
  type WorkspaceMember,
  type WorkspaceSummary,
  type paths,
} from '../src/index.js';
import type { PathsFor } from '../src/types.js';

const client = createClient({ apiKey: 'svc_live_x' });

describe('typed calls', () => {
  it('types params, bodies and responses from the contract', async () => {
    const { data, requestId } = await client.GET('/workspaces/{id}', { params: { path: { id: 'ws_1' } } });
    expectTypeOf(data).toEqualTypeOf<Workspace>();
    expectTypeOf(requestId).toEqualTypeOf<string | null>();
    const created = await client.POST('/workspaces', { body: { name: 'Northwind' } });
    expectTypeOf(created.data).toEqualTypeOf<Workspace>();
    const list = await client.GET('/workspaces', { params: { query: { limit: 10 } } });
    expectTypeOf(list.data.data).toEqualTypeOf<WorkspaceSummary[]>();
  });

  it('rejects a path the contract does not have', () => {
    // @ts-expect-error no such path
    void client.GET('/workspace');
    // @ts-expect-error the path exists, but not with this method
    void client.PUT('/workspaces', { body: { name: 'x' } });
  });

  it('rejects a missing or wrong required parameter', () => {
    // @ts-expect-error `params.path.id` is required
    void client.GET('/workspaces/{id}');
    // @ts-expect-error `params.path.id` is required
    void client.GET('/workspaces/{id}', { params: { path: {} } });
    // @ts-expect-error the body is required
    void client.POST('/workspaces');
    // @ts-expect-error `limit` is a number
    void client.GET('/workspaces', { params: { query: { limit: '10' } } });
  });

  it('rejects a wrong body field', () => {
    // @ts-expect-error `nmae` is not a field of WorkspaceCreateRequest
    void client.POST('/workspaces', { body: { name: 'x', nmae: 'y' } });
    // @ts-expect-error `name` is a string
    void client.POST('/workspaces', { body: { name: 42 } });
    // @ts-expect-error `type` is an enum
    void client.POST('/workspaces', { body: { name: 'x', type: 'galaxy' } });
  });

  it('rejects a wrong response access', async () => {
    const { data } = await client.GET('/workspaces/{id}', { params: { path: { id: 'ws_1' } } });
    // @ts-expect-error a workspace has no `title`
    void data.title;
    // @ts-expect-error `name` is a string
    void data.name.toFixed();
  });
});

describe('pagination', () => {
  it('iterates the list item type', async () => {
    for await (const item of client.paginate('/workspaces', { params: { query: { limit: 2 } } })) {
      expectTypeOf(item).toEqualTypeOf<WorkspaceSummary>();
    }
    expectTypeOf<ListItem<'/workspaces/{id}/members'>>().toEqualTypeOf<WorkspaceMember>();
    // @ts-expect-error the members list needs its workspace id
    void client.paginate('/workspaces/{id}/members');
    // @ts-expect-error getWorkspace is not a list
    void client.paginate('/workspaces/{id}', { params: { path: { id: 'ws_1' } } });
  });

  it('every GET that takes a cursor is a list the paginator accepts, and nothing else is', () => {
    type QueryOf<P extends PathsFor<'get'>> = NonNullable<NonNullable<paths[P]['get']>['parameters']['query']>;
    type TakesCursor = {
      [P in PathsFor<'get'>]: [QueryOf<P>] extends [never] ? never : 'cursor' extends keyof QueryOf<P> ? P : never;
    }[PathsFor<'get'>];
    expectTypeOf<ListPath>().toEqualTypeOf<TakesCursor>();
  });
});

describe('streaming', () => {
  it('yields the typed event union and collects the final object', async () => {
    const stream = await client.stream('/responses', { body: { model: 'service-1', persona_id: 'persona_1', input: 'Hi' } });
    expectTypeOf(stream).toEqualTypeOf<EventStream<StreamEvent<'/responses'>, StreamFinal<'/responses'>>>();
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') expectTypeOf(event.delta).toEqualTypeOf<string>();
      // @ts-expect-error error events are thrown as ApiError, never yielded
      if (event.type === 'error') break;
    }
    const chat = await client.stream('/chat/completions', {
      body: { model: 'service-1', persona_id: 'persona_1', messages: [{ role: 'user', content: 'Hi' }] },
    });
    for await (const chunk of chat) expectTypeOf(chunk).toEqualTypeOf<ChatCompletionChunk>();
    expectTypeOf(await chat.finalResponse()).toEqualTypeOf<ChatCompletion>();
  });

  it('rejects a non-streaming operation and a body that sets `stream` itself', () => {
    // @ts-expect-error createWorkspace does not stream
    void client.stream('/workspaces', { body: { name: 'x' } });
    // @ts-expect-error `stream` is set by the client
    void client.stream('/responses', { body: { model: 'service-1', persona_id: 'p', input: 'Hi', stream: true } });
  });

  it('every operation whose body has `stream` is a streaming operation, and nothing else is', () => {
    type Body<P extends PathsFor<'post'>> = NonNullable<OperationRequestBodyContent<NonNullable<paths[P]['post']>>>;
    // POST /responses/input_tokens takes the body of POST /responses to count it (DECISIONS.md, Responses):
    // its `stream` is part of the body it counts, read and ignored, never a way to stream.
    type CountsAnotherCall = '/responses/input_tokens';
    type HasStreamField = {
      [P in Exclude<PathsFor<'post'>, CountsAnotherCall>]: [Body<P>] extends [never] ? never : 'stream' extends keyof Body<P> ? P : never;
    }[Exclude<PathsFor<'post'>, CountsAnotherCall>];
    expectTypeOf<StreamPath>().toEqualTypeOf<HasStreamField>();
    expectTypeOf<CountsAnotherCall>().not.toMatchTypeOf<StreamPath>();
  });

  it('finalResponse() can be collected for every streaming operation', () => {
    // What the default collector relies on: chat chunks assemble into a chat.completion; every other stream
    // has `*.completed` / `*.failed` events whose one payload field is the final object.
    type Terminal<P extends StreamPath> = Extract<StreamEvent<P>, { type: `${string}.completed` | `${string}.failed` }>;
    type Carried<E> = E extends unknown ? E[Exclude<keyof E, 'type' | 'sequence_number'>] : never;
    type Collectable<P extends StreamPath> = [StreamEvent<P>] extends [ChatCompletionChunk]
      ? [StreamFinal<P>] extends [ChatCompletion]
        ? true
        : false
      : [Terminal<P>] extends [never]
        ? false
        : [Carried<Terminal<P>>] extends [StreamFinal<P>]
          ? true
          : false;
    expectTypeOf<{ [P in StreamPath]: Collectable<P> }>().toEqualTypeOf<{ [P in StreamPath]: true }>();
  });
});
