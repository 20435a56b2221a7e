import { CATALOG_CREATED_AT } from '@persona-api/engine';
import type { components } from '@persona-api/types';
import type { Handler } from '../contract/handler-types.js';
import type { RequestContext } from '../http/context.js';
import { errors } from '../http/errors.js';
import { decodeCursor, toPage } from '../lib/pagination.js';

type Model = components['schemas']['Model'];

/** The one model the API offers; what serves it depends on this deployment's engine (DECISIONS.md, Models). */
export const MODEL_ID = 'service-1';
// service-1 was published with the persona catalog.
const MODEL_CREATED = CATALOG_CREATED_AT;

function serviceModel(ctx: RequestContext): Model {
  const engine = ctx.engine.describe();
  return {
    id: MODEL_ID,
    object: 'model',
    created: MODEL_CREATED,
    owned_by: 'persona-api',
    engine: engine.engine,
    upstream_model: engine.upstream_model,
    context_window: engine.context_window,
    max_output_tokens: engine.max_output_tokens,
  };
}

export const listModels: Handler<'listModels'> = async ({ query }, ctx) => {
  const page = { list: 'models', limit: query.limit ?? 50, cursor: query.cursor };
  const models = [serviceModel(ctx)];
  // Same ordering and cursors as every list (newest first, id tie-breaker), over a list held in memory.
  const after = query.cursor === undefined ? null : decodeCursor(page.list, query.cursor);
  const keyOf = (model: Model) => ({ sortKey: new Date(model.created * 1000), id: model.id });
  const rows = models.filter((model) => {
    if (!after) return true;
    const key = keyOf(model);
    return key.sortKey < after.sortKey || (key.sortKey.getTime() === after.sortKey.getTime() && key.id < after.id);
  });
  return toPage(page, rows.slice(0, page.limit + 1), keyOf, (model) => model);
};

export const getModel: Handler<'getModel'> = async ({ params }, ctx) => {
  if (params.id !== MODEL_ID) throw errors.notFound('model', params.id);
  return serviceModel(ctx);
};
