import { CATALOG_CREATED_AT } from '@persona-api/engine';
import type { Model } from '@persona-api/types';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { pageOf } from '../../lib/pagination.js';

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
    accepts_images: engine.accepts_images,
  };
}

export const modelHandlers = {
  // Same ordering and cursors as every list (newest first, id tie-breaker), over a list held in memory.
  listModels: async ({ query }, ctx) => pageOf(query, 'models', [serviceModel(ctx)], (model) => ({ sortKey: new Date(model.created * 1000), id: model.id })),

  getModel: async ({ params }, ctx) => {
    if (params.id !== MODEL_ID) throw errors.notFound('model', params.id);
    return serviceModel(ctx);
  },
} satisfies Pick<HandlerMap, 'listModels' | 'getModel'>;
