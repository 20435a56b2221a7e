// POST /video-analyses/{id}/chat: an answer grounded in a completed analysis' result, through the engine's
// structured-output primitive (the `videoAnalysisChat` feature: the upstream model reads the result, the
// offline engine quotes the chunks matching the question); citations of times that are not chunks of
// the result are dropped. Returned as a response object, or streamed as the events of POST /responses.
import { creditsForTokens, videoAnalysisChat, type EngineUsage, type VideoChatOutput } from '@persona-api/engine';
import type { Handler, Streamed } from '../../contract/handler-types.js';
import { apiErrorOf, prepareModelCall, settleModelCall, type PreparedCall } from '../../ai/model-call.js';
import { messageItem, ResponseEventWriter, responseObject, responseUsage, type ResponseState } from '../../ai/responses/output.js';
import { defaultResponseSettings, type ResponseObject } from '../../ai/responses/request.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { clientDisconnectSignal, openEventStream } from '../../http/sse.js';
import { newId } from '../../lib/ids.js';
import { unix } from '../../lib/wire.js';
import { requireMembership, requireRole } from '../../workspaces/access.js';
import type { VideoAnalysisRow } from './mapper.js';
import { findVideoAnalysis } from './repository.js';

interface Chat {
  id: string;
  createdAt: number;
  prepared: PreparedCall;
  body: Record<string, unknown>;
}

const snapshotOf = (chat: Chat, state: ResponseState): ResponseObject =>
  responseObject(chat.id, chat.createdAt, defaultResponseSettings(chat.prepared.personaId), state, { jsonSchema: false, analysis: false });

/** Charges the tokens and stores the response (settleModelCall), returning the body with the credits charged. */
async function settle(ctx: RequestContext, chat: Chat, stream: boolean, usage: EngineUsage, state: (charged: number) => ResponseState) {
  const settled = await settleModelCall(ctx, chat.prepared, {
    id: chat.id,
    object: 'response',
    status: 'completed',
    stream,
    usage,
    credits: creditsForTokens(usage.input_tokens + usage.output_tokens),
    request: chat.body,
    body: (charged) => snapshotOf(chat, state(charged)) as Record<string, unknown>,
  });
  return { response: settled.body as ResponseObject, budgetAlert: settled.budgetAlert };
}

/** Word-sized deltas (each word with the whitespace after it), as the engines stream text. */
const wordDeltas = (text: string) => text.match(/\s*\S+\s*/g) ?? [text];

async function streamAnswer(ctx: RequestContext, chat: Chat, output: VideoChatOutput, usage: EngineUsage): Promise<Streamed> {
  // A stream's headers go out before the charge: the alert as the hold found it.
  if (chat.prepared.budgetAlertReached) ctx.setHeader('budget-alert', 'workspace');
  const stream = openEventStream(ctx);
  const writer = new ResponseEventWriter((event) => stream.send(event, event.type));
  writer.start(snapshotOf(chat, { status: 'in_progress', output: [], usage: null }));
  for (const delta of wordDeltas(output.answer)) {
    writer.textDelta(delta);
    await stream.drained();
  }
  writer.finishItems(false);
  // The whole answer was computed (and the model paid) before the first byte: it is charged even if the client left.
  const settled = await settle(ctx, chat, true, usage, (charged) => ({ status: 'completed', output: writer.output, usage: responseUsage(usage, charged) }));
  if (stream.closed) return stream.abandon();
  writer.finish(settled.response);
  return stream.done();
}

export const chatWithVideoAnalysis: Handler<'chatWithVideoAnalysis'> = async ({ params, body }, ctx) => {
  const { row, role } = await findVideoAnalysis(ctx.db, ctx.auth.userId, params.id);
  requireRole(role, 'ai.call', 'chat about video analyses in this workspace (it spends credits)');
  if (body.messages.at(-1)?.role !== 'user') throw errors.invalidParameter('messages', 'The last message must be from `user`: the question to answer.');
  const result = completedResult(row);
  const membership = await requireMembership(ctx.db, row.workspaceId, ctx.auth.userId);
  const prepared = await prepareModelCall(ctx, {
    personaId: body.persona_id ?? null,
    // What the model reads: the result and the conversation (the balance check's floor).
    request: { instructions: JSON.stringify(result), messages: body.messages },
    membership,
    stream: body.stream === true,
  });
  const chat: Chat = { id: newId('resp'), createdAt: unix(ctx.now()), prepared, body: body as unknown as Record<string, unknown> };
  // Nothing was sent yet: an engine failure is an HTTP error (502 upstream_error, 504 upstream_timeout).
  const { output, usage } = await ctx.engine
    .run(
      videoAnalysisChat,
      { title: row.title, brand: row.brand, product: row.product, goal: row.goal, result, messages: body.messages, persona: prepared.request.persona },
      { signal: clientDisconnectSignal(ctx.reply) },
    )
    .catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    });
  if (body.stream) return streamAnswer(ctx, chat, output, usage);
  const settled = await settle(ctx, chat, false, usage, (charged) => ({
    status: 'completed',
    output: [messageItem(output.answer, 'completed')],
    usage: responseUsage(usage, charged),
  }));
  if (settled.budgetAlert) ctx.setHeader('budget-alert', settled.budgetAlert);
  return settled.response;
};

/** The result to answer from; 409 until the analysis is completed. */
function completedResult(row: VideoAnalysisRow) {
  if (row.status !== 'completed' || !row.result) {
    throw errors.conflict(
      'invalid_state',
      `Video analysis ${row.id} is ${row.status}${row.status === 'failed' ? '' : `, ${row.progress}% done`}; chat answers from the result of a completed analysis.`,
    );
  }
  return row.result;
}
