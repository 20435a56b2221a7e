// Running a generation: the engine's content-generation text feature streamed through the output
// pipeline (avoided terms, HTML blocks), then the generation stored and charged by its tokens in one
// transaction. The work is detached from the client: a client that leaves (streamed or not) does not
// cancel it; it is stored and charged and can be read by the id from `generation.created` (DECISIONS.md).
import { contentGeneration, creditsForTokens, type ContentGenerationInput, type EngineStreamEvent, type EngineUsage } from '@persona-api/engine';
import type { GenerationCreateResult } from '@persona-api/types';
import { budgetAlertHeader, chargeCredits, type ChargeResult } from '../../billing/credits.js';
import type { Streamed } from '../../contract/handler-types.js';
import { apiErrorOf, budgetAlertBeforeStream, responseErrorOf } from '../../ai/model-call.js';
import type { RequestContext } from '../../http/context.js';
import { openEventStream, streamFailure, type EventStream } from '../../http/sse.js';
import { toGeneration, type GenerationRow } from './mapper.js';
import { GenerationOutput } from './output.js';
import { insertGeneration } from './repository.js';

/** The contract's bounds: a delta is 1–10 000 characters, an output at most 100 000. */
const MAX_DELTA = 10_000;
const MAX_OUTPUT = 100_000;

export interface GenerationPlan {
  /** The row as stored, but for `output`, token counts and credits, which the run fills in. */
  row: GenerationRow;
  input: ContentGenerationInput;
  avoidTerms: readonly string[];
  stream: boolean;
  /** The credit hold the charge consumes (holdCredits). */
  holdId: string;
}

const createResult = (row: GenerationRow, usage: EngineUsage, charged: number): GenerationCreateResult => ({
  ...toGeneration(row),
  content: row.output,
  usage: {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    credits_used: charged,
  },
});

/** Stores the generation and charges its tokens in one transaction (DECISIONS.md, Credits). */
async function settle(
  ctx: RequestContext,
  plan: GenerationPlan,
  output: string,
  usage: EngineUsage,
): Promise<{ result: GenerationCreateResult; charge: ChargeResult | null }> {
  const total = usage.input_tokens + usage.output_tokens;
  const credits = creditsForTokens(total);
  const { row } = plan;
  return ctx.db
    .transaction(async (tx) => {
      const charge =
        credits > 0
          ? await chargeCredits(tx, {
              accountId: ctx.auth.accountId,
              workspaceId: row.workspaceId,
              projectId: row.projectId,
              apiKeyId: ctx.auth.apiKeyId,
              amount: credits,
              pricing: 'metered',
              reservationId: plan.holdId,
              description: `Generation ${row.id} (${total} tokens)`,
              operationId: ctx.operationId,
              requestId: ctx.requestId,
              now: ctx.now(),
            })
          : null;
      const charged = charge?.charged ?? 0;
      const stored: GenerationRow = {
        ...row,
        output,
        promptTokens: usage.input_tokens,
        completionTokens: usage.output_tokens,
        creditsUsed: charged,
      };
      await insertGeneration(tx, stored);
      return { result: createResult(stored, usage, charged), charge };
    })
    .finally(() => {
      ctx.meter.promptTokens += usage.input_tokens;
      ctx.meter.completionTokens += usage.output_tokens;
    });
}

/**
 * The engine's first event, before anything is sent: a model server that fails or times out before
 * answering is an HTTP 502/504, not a stream event (as for /responses).
 */
async function start(ctx: RequestContext, plan: GenerationPlan) {
  // No client signal: leaving does not cancel the generation.
  const events = ctx.engine.streamText(contentGeneration, plan.input)[Symbol.asyncIterator]();
  try {
    const first = await events.next();
    return { first: first.done ? null : first.value, events };
  } catch (error) {
    throw apiErrorOf(ctx, error);
  }
}

/** Drains the engine's events through the output pipeline; `emit` gets each safe piece. */
async function drain(
  started: Awaited<ReturnType<typeof start>>,
  output: GenerationOutput,
  emit: (delta: string) => void,
  writable: () => Promise<void> = () => Promise.resolve(),
): Promise<{ usage: EngineUsage | null; failure: unknown; text: string }> {
  let text = '';
  // What is emitted is what is stored: cut at the contract's bound, in deltas within theirs.
  const send = (piece: string) => {
    const kept = piece.slice(0, MAX_OUTPUT - text.length);
    text += kept;
    for (let at = 0; at < kept.length; at += MAX_DELTA) emit(kept.slice(at, at + MAX_DELTA));
  };
  let usage: EngineUsage | null = null;
  try {
    let event: EngineStreamEvent | null = started.first;
    while (event) {
      if (event.type === 'text_delta') send(output.push(event.delta));
      else if (event.type === 'done') usage = event.result.usage;
      await writable();
      const step = await started.events.next();
      event = step.done ? null : step.value;
    }
    if (!usage) return { usage: null, failure: new Error('The engine stream ended without a result.'), text };
    send(output.finish());
    return { usage, failure: null, text };
  } catch (failure) {
    return { usage: null, failure, text };
  } finally {
    await started.events.return?.().catch(() => undefined);
  }
}

export async function generate(ctx: RequestContext, plan: GenerationPlan): Promise<GenerationCreateResult> {
  const started = await start(ctx, plan);
  const output = new GenerationOutput(plan.avoidTerms, plan.row.contentType);
  const { usage, failure, text } = await drain(started, output, () => undefined);
  // Nothing was sent yet: a failure is an HTTP error, and nothing is stored or charged.
  if (!usage) throw apiErrorOf(ctx, failure);
  const { result, charge } = await settle(ctx, plan, text, usage);
  const alert = charge ? budgetAlertHeader(charge) : undefined;
  if (alert) ctx.setHeader('budget-alert', alert);
  return result;
}

export async function generateStreamed(ctx: RequestContext, plan: GenerationPlan): Promise<Streamed> {
  const started = await start(ctx, plan);
  // A stream's headers precede the charge: the budget alert as it stands when the stream opens.
  const alert = await budgetAlertBeforeStream(ctx, plan.row.workspaceId);
  if (alert) ctx.setHeader('budget-alert', alert);
  const stream: EventStream = openEventStream(ctx);
  let sequence = 0;
  const send = (event: Record<string, unknown> & { type: string }) => stream.send({ ...event, sequence_number: sequence++ }, event.type);
  send({ type: 'generation.created', generation: toGeneration({ ...plan.row, output: '' }) });

  const output = new GenerationOutput(plan.avoidTerms, plan.row.contentType);
  const { usage, failure, text } = await drain(
    started,
    output,
    (delta) => send({ type: 'generation.output_text.delta', generation_id: plan.row.id, delta }),
    () => stream.drained(),
  );
  try {
    if (!usage) {
      // The model server failed after the stream began: nothing stored or charged.
      const error = responseErrorOf(ctx, failure);
      send({ type: 'error', code: error.code, message: error.message, param: null });
      return await stream.done();
    }
    const { result } = await settle(ctx, plan, text, usage);
    send({ type: 'generation.completed', generation: result });
    return await stream.done();
  } catch (error) {
    ctx.log.error({ err: error }, 'streamed generation failed after it started');
    send({ type: 'error', ...streamFailure(error, ctx.requestId, 'the generation'), param: null });
    return await stream.done();
  }
}
