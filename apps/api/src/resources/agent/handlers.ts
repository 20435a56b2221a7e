import { creditsForTokens, type EngineMessage, type EnginePersona } from '@persona-api/engine';
import type { AgentMessage, AgentMessageSource, AgentStreamEvent } from '@persona-api/types';
import { and, eq } from 'drizzle-orm';
import { resolveCitations } from '../../ai/citations.js';
import { apiErrorOf, budgetAlertBeforeStream } from '../../ai/model-call.js';
import { researchTools } from '../../ai/tools/index.js';
import { budgetAlertHeader, chargeCredits, holdCredits } from '../../billing/credits.js';
import { DEFAULT_OUTPUT_ALLOWANCE_TOKENS } from '../../ai/model-call.js';
import type { HandlerMap, Streamed } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { openEventStream, streamErrorEvent, type EventStream } from '../../http/sse.js';
import { newId } from '../../lib/ids.js';
import { deleted } from '../../lib/wire.js';
import { defaultWorkspace, requireMembership, requireRole, type Membership } from '../../workspaces/access.js';
import { personaForCall } from '../personas/repository.js';
import { projects } from '../projects/table.js';
import { AnswerFailure, MAX_TOOL_ROUNDS, promptFloor, researchAnswer, type Answer } from './answer.js';
import { toAgentMessage, toAgentThread, type AgentMessageRow, type AgentThreadRow } from './mapper.js';
import {
  chargeThread,
  conversationOf,
  deleteThreadRow,
  failStaleAnswer,
  findThread,
  finishAnswer,
  hasAnswerInProgress,
  insertThread,
  listMessagesOf,
  listThreadsOf,
  STALE_ANSWER_MS,
  startAnswer,
} from './repository.js';
import { agentThreads } from './table.js';

/** Earlier messages an answer reads (the newest ones). */
const CONTEXT_MESSAGES = 20;

/** The workspace named by the body, else the caller's default one (400 when they own none). */
async function targetWorkspace(ctx: RequestContext, workspaceId: string | undefined): Promise<Membership> {
  if (workspaceId) return requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  const membership = await defaultWorkspace(ctx.db, ctx.auth.userId);
  if (!membership) throw errors.missingParameter('workspace_id', 'workspace_id is required: you own no workspace it could default to.');
  return membership;
}

/** Earlier answers' `[n]` refer to their own sources: the context keeps their words, not their numbers. */
const historyOf = (rows: readonly AgentMessageRow[]): EngineMessage[] =>
  rows.map((row) => ({ role: row.role, content: row.role === 'assistant' ? resolveCitations(row.content, 0) : row.content }));

/** The thread's persona, or null (neutral) when it has none or it was deleted since. */
async function threadPersona(ctx: RequestContext, thread: AgentThreadRow): Promise<EnginePersona | null> {
  if (!thread.personaId) return null;
  return personaForCall(ctx.db, ctx.auth.userId, thread.personaId, 'persona_id')
    .then((found) => found.persona)
    .catch(() => null);
}

/** An event of AgentStreamEvent before its sequence number is given. */
type AgentEvent = AgentStreamEvent extends infer Event ? (Event extends AgentStreamEvent ? Omit<Event, 'sequence_number'> : never) : never;

interface Run {
  thread: AgentThreadRow;
  answer: AgentMessageRow;
  /** The credit hold the charge consumes (holdCredits). */
  holdId: string;
}

/** Stores a completed answer and its charge in one transaction (DECISIONS.md, Credits). */
async function settle(ctx: RequestContext, run: Run, result: Answer): Promise<{ message: AgentMessage; alert: string | undefined }> {
  const now = ctx.now();
  const tokens = result.usage.inputTokens + result.usage.outputTokens;
  const { row, alert } = await ctx.db.transaction(async (tx) => {
    const charge = await chargeCredits(tx, {
      accountId: ctx.auth.accountId,
      workspaceId: run.thread.workspaceId,
      projectId: run.thread.projectId,
      apiKeyId: ctx.auth.apiKeyId,
      amount: creditsForTokens(tokens),
      pricing: 'metered',
      reservationId: run.holdId,
      description: `Research answer ${run.answer.id} (${tokens} tokens)`,
      operationId: ctx.operationId,
      requestId: ctx.requestId,
      now,
    });
    const changes = {
      status: 'completed' as const,
      content: result.content,
      sources: result.sources,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      creditsUsed: charge.charged,
      error: null,
      updatedAt: now,
    };
    await finishAnswer(tx, run.answer.id, changes);
    await chargeThread(tx, run.thread.id, { credits: charge.charged, title: result.title, now });
    return { row: { ...run.answer, ...changes }, alert: budgetAlertHeader(charge) };
  });
  ctx.meter.promptTokens += result.usage.inputTokens;
  ctx.meter.completionTokens += result.usage.outputTokens;
  return { message: toAgentMessage(row), alert };
}

/** Stores a failed answer: what it had written and found, nothing charged. */
async function fail(ctx: RequestContext, run: Run, failure: AnswerFailure): Promise<void> {
  await finishAnswer(ctx.db, run.answer.id, {
    status: 'failed',
    content: failure.partial.content,
    sources: failure.partial.sources,
    inputTokens: failure.partial.usage.inputTokens,
    outputTokens: failure.partial.usage.outputTokens,
    creditsUsed: 0,
    error: failure.message.slice(0, 2000),
    updatedAt: ctx.now(),
  });
}

/**
 * The streamed answer. The client leaving changes nothing (DECISIONS.md): the answer runs to the end, is
 * stored and charged, and the whole stream is recorded for an Idempotency-Key replay.
 */
async function streamAnswer(ctx: RequestContext, run: Run, produce: (events: Parameters<typeof researchAnswer>[2]) => Promise<Answer>): Promise<Streamed> {
  const alert = await budgetAlertBeforeStream(ctx, run.thread.workspaceId);
  if (alert) ctx.setHeader('budget-alert', alert);
  const stream: EventStream = openEventStream(ctx);
  let sequence = 0;
  const send = (event: AgentEvent) => stream.send({ ...event, sequence_number: sequence++ }, event.type);
  send({ type: 'agent.message.created', message: toAgentMessage(run.answer) });
  try {
    const result = await produce({
      source: (index, source: AgentMessageSource) => send({ type: 'agent.message.source.added', message_id: run.answer.id, source_index: index, source }),
      delta: (text) => {
        // AgentMessageDeltaEvent.delta is at most 4000 characters.
        for (let at = 0; at < text.length; at += 4000) send({ type: 'agent.message.delta', message_id: run.answer.id, delta: text.slice(at, at + 4000) });
      },
      writable: () => stream.drained(),
    });
    const { message } = await settle(ctx, run, result);
    send({ type: 'agent.message.completed', message });
  } catch (error) {
    const failure = error instanceof AnswerFailure ? error : new AnswerFailure(error, { content: '', sources: [], usage: { inputTokens: 0, outputTokens: 0 } });
    await fail(ctx, run, failure).catch((stored: unknown) => ctx.log.error({ err: stored }, 'could not store a failed answer'));
    const api = apiErrorOf(ctx, failure.failure);
    send(streamErrorEvent(sequence, { code: api.code, message: api.message }));
  }
  return stream.done();
}

export const agentHandlers = {
  listAgentThreads: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listThreadsOf(ctx.db, ctx.auth.userId, query);
  },

  createAgentThread: async ({ body }, ctx) => {
    const membership = await targetWorkspace(ctx, body.workspace_id);
    requireRole(membership.role, 'ai.call', 'start research-agent threads in this workspace');
    if (body.project_id) {
      const [project] = await ctx.db
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, body.project_id), eq(projects.workspaceId, membership.workspace.id)))
        .limit(1);
      if (!project) throw errors.notFound('project', body.project_id, 'project_id');
    }
    const personaId = body.persona_id ? (await personaForCall(ctx.db, ctx.auth.userId, body.persona_id, 'persona_id')).id : null;
    const now = ctx.now();
    const row: AgentThreadRow = {
      id: newId('thr'),
      workspaceId: membership.workspace.id,
      projectId: body.project_id ?? null,
      createdByUserId: ctx.auth.userId,
      personaId,
      title: body.title ?? 'New thread',
      titlePending: body.title === undefined,
      messageCount: 0,
      creditsUsed: 0,
      lastMessageAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.db.transaction((tx) => insertThread(tx, row));
    return toAgentThread(row);
  },

  getAgentThread: async ({ params }, ctx) => toAgentThread((await findThread(ctx.db, ctx.auth.userId, params.id)).row),

  updateAgentThread: async ({ params, body }, ctx) => {
    const { row, role } = await findThread(ctx.db, ctx.auth.userId, params.id);
    requireRole(role, 'ai.call', 'rename research-agent threads in this workspace');
    const now = ctx.now();
    await ctx.db.update(agentThreads).set({ title: body.title, titlePending: false, updatedAt: now }).where(eq(agentThreads.id, row.id));
    return toAgentThread({ ...row, title: body.title, titlePending: false, updatedAt: now });
  },

  deleteAgentThread: async ({ params }, ctx) => {
    const { row, role } = await findThread(ctx.db, ctx.auth.userId, params.id);
    requireRole(role, 'content.delete', 'delete research-agent threads in this workspace');
    await failStaleAnswer(ctx.db, row.id, new Date(ctx.now().getTime() - STALE_ANSWER_MS), ctx.now());
    if (await hasAnswerInProgress(ctx.db, row.id)) {
      throw errors.conflict('invalid_state', 'An answer is in progress in this thread; delete it once the answer is complete.');
    }
    await ctx.db.transaction((tx) => deleteThreadRow(tx, row));
    return deleted('agent_thread', row.id);
  },

  listAgentMessages: async ({ params, query }, ctx) => {
    const { row } = await findThread(ctx.db, ctx.auth.userId, params.id);
    return listMessagesOf(ctx.db, row.id, query);
  },

  createAgentMessage: async ({ params, body }, ctx) => {
    const { row: thread, role } = await findThread(ctx.db, ctx.auth.userId, params.id);
    requireRole(role, 'ai.call', 'ask the research agent in this workspace');
    const persona = await threadPersona(ctx, thread);
    const history = historyOf(await conversationOf(ctx.db, thread.id, CONTEXT_MESSAGES));
    const tools = researchTools(ctx.services);
    // The prompt's tokens are the floor of the cost: 402 before anything is stored. The hold covers what an
    // answer usually costs: the prompt sent in every tool round, the answer and its title, so concurrent
    // questions cannot all run on the same credits.
    const floorTokens = promptFloor({ persona, history, question: body.content, tools });
    const hold = await holdCredits(ctx.db, {
      accountId: ctx.auth.accountId,
      workspaceId: thread.workspaceId,
      projectId: thread.projectId,
      floor: creditsForTokens(floorTokens),
      estimate: creditsForTokens(floorTokens * (MAX_TOOL_ROUNDS + 2) + 2 * DEFAULT_OUTPUT_ALLOWANCE_TOKENS),
      now: ctx.now(),
    });
    try {
      return await answerWithHold(ctx, { thread, persona, history, tools, body, holdId: hold.id });
    } finally {
      await hold.release();
    }
  },
} satisfies Pick<
  HandlerMap,
  'listAgentThreads' | 'createAgentThread' | 'getAgentThread' | 'updateAgentThread' | 'deleteAgentThread' | 'listAgentMessages' | 'createAgentMessage'
>;

/** Stores the question, then answers it (streamed or not), the charge consuming the hold `holdId`. */
async function answerWithHold(
  ctx: RequestContext,
  {
    thread,
    persona,
    history,
    tools,
    body,
    holdId,
  }: {
    thread: AgentThreadRow;
    persona: Awaited<ReturnType<typeof threadPersona>>;
    history: ReturnType<typeof historyOf>;
    tools: ReturnType<typeof researchTools>;
    body: { content: string; stream?: boolean | null };
    holdId: string;
  },
) {
  const now = ctx.now();
  const user: AgentMessageRow = {
    id: newId('msg'),
    threadId: thread.id,
    role: 'user',
    content: body.content,
    status: 'completed',
    sources: [],
    inputTokens: 0,
    outputTokens: 0,
    creditsUsed: 0,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  // One millisecond later, so the answer always lists after its question.
  const answerAt = new Date(now.getTime() + 1);
  const answer: AgentMessageRow = {
    ...user,
    id: newId('msg'),
    role: 'assistant',
    content: '',
    status: 'in_progress',
    createdAt: answerAt,
    updatedAt: answerAt,
  };
  const started = await ctx.db.transaction(async (tx) => {
    await failStaleAnswer(tx, thread.id, new Date(now.getTime() - STALE_ANSWER_MS), now);
    return startAnswer(tx, user, answer);
  });
  if (!started) throw errors.conflict('invalid_state', 'An answer is already in progress in this thread; wait for it before sending the next message.');

  const run: Run = { thread, answer, holdId };
  const produce = (events: Parameters<typeof researchAnswer>[2]) =>
    researchAnswer(
      ctx,
      {
        persona,
        history,
        question: body.content,
        tools,
        scope: { db: ctx.db, services: ctx.services, workspaceId: thread.workspaceId, now, documentCache: new Map() },
        // From the thread's first message (this one, unless an earlier answer failed before titling it).
        titleFrom: thread.titlePending ? (history.find((message) => message.role === 'user')?.content ?? body.content) : null,
      },
      events,
    );
  if (body.stream) return streamAnswer(ctx, run, produce);
  try {
    const result = await produce({ source: () => {}, delta: () => {} });
    const { message, alert } = await settle(ctx, run, result);
    if (alert) ctx.setHeader('budget-alert', alert);
    return message;
  } catch (error) {
    const failure = error instanceof AnswerFailure ? error : new AnswerFailure(error, { content: '', sources: [], usage: { inputTokens: 0, outputTokens: 0 } });
    await fail(ctx, run, failure);
    throw apiErrorOf(ctx, failure.failure);
  }
}
