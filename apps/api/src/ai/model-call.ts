import {
  countPromptTokens,
  countTokens,
  countToolCallTokens,
  creditsForTokens,
  EngineError,
  type EngineToolCall,
  type EngineUsage,
  type GenerateRequest,
  type GenerateResult,
} from '@persona-api/engine';
import { type SQL, sql } from 'drizzle-orm';
import { billingPeriod, budgetAlertHeader, budgetAlertReachedSql, chargeCall, releaseReservation, reserveCredits } from '../billing/credits.js';
import { creditReservations, modelResponses } from '../db/schema/index.js';
import { foreignKeyViolation, rowsOf } from '../db/sql.js';
import type { RequestContext } from '../http/context.js';
import { apiError, ApiError, CLIENT_CLOSED_REQUEST, errors } from '../http/errors.js';
import { dependencyFailure } from '../http/dependency-faults.js';
import { requireRole, type Membership } from '../workspaces/access.js';
import { personaForCall } from '../resources/personas/repository.js';
import { newId } from '../lib/ids.js';

/** DECISIONS.md, Credits: `analysis_mode` costs 5 credits on top of the tokens. */
export const ANALYSIS_CREDITS = 5;

export interface PreparedCall {
  request: GenerateRequest;
  /** Null for a call answered without a persona (a video-analysis chat sent without one). */
  personaId: string | null;
  /** The caller's default workspace, whose limits apply and where the charge is booked; null if they own none. */
  workspaceId: string | null;
  /** Input tokens of the request as the engine will send it: the floor of what it costs. */
  inputTokens: number;
  /** The credits held for this call until it is charged (reserveCredits). */
  reservationId: string;
  /** True once the charge took the hold (or gave it back): nothing is left to release. */
  settled: boolean;
  /** Whether the settlement stores the call's request and answer (false: the request's `store: false`). */
  keep: boolean;
  /**
   * The hold, taken: already resolved unless the call overlaps it with the model (`overlapHold`). Rejects
   * with the refusal (402/403). `workspaceId` is known once it resolves; the answer waits for it.
   */
  held: Promise<void>;
  /** Known with `held`, for a call prepared to stream: whether the workspace's budget alert was reached before it. */
  budgetAlertReached: boolean;
}

/**
 * Accounts whose last hold on this instance was granted, until when (ms since the epoch): their next call
 * may start the model while its hold is taken (prepareModelCall's `overlapHold`). A refusal removes the
 * account, so an account that ran out of credits or lost its role waits for its hold before the model is
 * called again, and a refused caller cannot have this instance start model calls for nothing. Bounded:
 * the oldest entry goes first.
 */
const GOOD_STANDING_MS = 60_000;
const GOOD_STANDING_MAX_ACCOUNTS = 10_000;
const goodStanding = new Map<string, number>();

function recordStanding(accountId: string, granted: boolean): void {
  goodStanding.delete(accountId);
  if (!granted) return;
  if (goodStanding.size >= GOOD_STANDING_MAX_ACCOUNTS) goodStanding.delete(goodStanding.keys().next().value!);
  goodStanding.set(accountId, Date.now() + GOOD_STANDING_MS);
}

const inGoodStanding = (accountId: string) => (goodStanding.get(accountId) ?? 0) > Date.now();

/**
 * Output tokens held for a call that sets no max_output_tokens (10 credits): a typical answer fits. A
 * longer answer is still charged in full as far as the credits no other call holds allow.
 */
export const DEFAULT_OUTPUT_ALLOWANCE_TOKENS = 1000;

/** The same allowance in credits, held per model answer by the other token-priced features (holdCredits). */
export const OUTPUT_ALLOWANCE_CREDITS = creditsForTokens(DEFAULT_OUTPUT_ALLOWANCE_TOKENS);

/**
 * The model request with the persona it is answered as (a 404 naming `persona_id` when the caller cannot use
 * it): a base persona is read from memory, a custom one in one statement.
 */
export async function withPersona(
  ctx: RequestContext,
  personaId: string | null,
  request: Omit<GenerateRequest, 'persona'>,
): Promise<{ personaId: string | null; request: GenerateRequest }> {
  if (personaId === null) return { personaId: null, request: { ...request, persona: null } };
  const { id, persona } = await personaForCall(ctx.db, ctx.auth.userId, personaId, 'persona_id');
  return { personaId: id, request: { ...request, persona } };
}

/** The input tokens of a model request as a call counts them: the persona's prompt, `instructions`, the messages and the tools. */
export function promptTokensOf(request: GenerateRequest): number {
  const systemTexts = [request.persona?.system_prompt ?? '', request.instructions ?? ''].filter((text) => text.trim().length > 0);
  return countPromptTokens(systemTexts, request.messages, request.tools ?? []);
}

/**
 * What every paid model call does before the model runs: the persona (404 naming `persona_id`), the
 * `ai.call` permission in the default workspace, and a hold on the credits it may cost (402 when the
 * free balance does not cover the input's cost, nothing done). The hold is released in the charge, or
 * when the request ends without one.
 */
export async function prepareModelCall(
  ctx: RequestContext,
  input: {
    personaId: string | null;
    request: Omit<GenerateRequest, 'persona'>;
    extraCredits?: number;
    /** The workspace the call is about and billed to (a video analysis'); default: the caller's default workspace. */
    membership?: Membership;
    /**
     * Let the model start before the hold is granted, when this account's last hold here was granted
     * (goodStanding): the hold's round trip then runs beside the model call instead of before it. The
     * answer still waits for the hold (generateUnderHold, openModelStream), and a refusal aborts the model
     * call, so nothing is answered without its hold.
     */
    overlapHold?: boolean;
    /** The answer streams: the hold also reads the budget alert its headers carry (they go out before the charge). */
    stream?: boolean;
    /** Store the request and answer when settling (default); false for a request's `store: false` (DECISIONS.md). */
    keep?: boolean;
  },
): Promise<PreparedCall> {
  // Before the hold: the persona's prompt is part of the floor.
  const { personaId, request } = await withPersona(ctx, input.personaId, input.request);
  const inputTokens = promptTokensOf(request);
  const extra = input.extraCredits ?? 0;
  const outputAllowance = Math.min(request.max_output_tokens ?? DEFAULT_OUTPUT_ALLOWANCE_TOKENS, ctx.engine.describe().max_output_tokens);
  const reservationId = newId('hold');
  if (input.membership) requireRole(input.membership.role, 'ai.call', 'make paid AI calls in this workspace');
  const accountId = ctx.auth.accountId;
  const overlap = input.overlapHold === true && inGoodStanding(accountId);
  // One statement: without a workspace named, the hold finds the caller's default workspace and checks
  // their role there itself (403 before 402, as when it was read apart), so no read precedes it.
  const held = reserveCredits(ctx.db, {
    accountId,
    workspaceId: input.membership?.workspace.id ?? null,
    ...(input.membership ? {} : { defaultWorkspaceOf: { userId: ctx.auth.userId, action: 'ai.call' as const, doing: 'make paid AI calls in this workspace' } }),
    floor: creditsForTokens(inputTokens) + extra,
    estimate: creditsForTokens(inputTokens + outputAllowance) + extra,
    now: ctx.now(),
    reservationId,
    withBudgetAlert: input.stream === true,
  }).then(
    (hold) => {
      prepared.workspaceId = hold.workspaceId;
      prepared.budgetAlertReached = hold.budgetAlertReached;
      recordStanding(accountId, true);
    },
    (refusal: unknown) => {
      if (refusal instanceof ApiError) recordStanding(accountId, false);
      throw refusal;
    },
  );
  const prepared: PreparedCall = {
    request,
    personaId,
    workspaceId: null,
    inputTokens,
    reservationId,
    settled: false,
    keep: input.keep !== false,
    held,
    budgetAlertReached: false,
  };
  // Released when the request ends without a charge (a failure, a client that left), once the hold's own
  // statement is done, so a release never runs before the hold it releases.
  ctx.reply.raw.once('close', () => {
    if (prepared.settled) return;
    held
      .then(
        () => (prepared.settled ? undefined : releaseReservation(ctx.db, reservationId)),
        () => undefined, // refused or failed: there is no hold
      )
      .catch((err: unknown) => ctx.log.warn({ err }, 'releasing a credit hold failed'));
  });
  // Overlapped, the hold is awaited with the answer (a refusal is thrown there); else now.
  if (overlap) held.catch(() => undefined);
  else await held;
  return prepared;
}

/**
 * Starts the model's work for a prepared call (`start`, given a signal) while its hold may still be taken
 * (`overlapHold`), and returns its result once the hold is granted. The hold's refusal wins over whatever
 * the model did: its work is aborted, `discard` closes what it had opened, and the refusal is thrown, so
 * nothing is answered or charged without the hold.
 */
export async function startUnderHold<T>(
  prepared: PreparedCall,
  signal: AbortSignal,
  start: (signal: AbortSignal) => Promise<T>,
  discard?: (started: T) => unknown,
): Promise<T> {
  const refused = new AbortController();
  // Settled into a value at once: a model failure while the hold is awaited is not an unhandled rejection.
  const started = start(AbortSignal.any([signal, refused.signal])).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  try {
    await prepared.held;
  } catch (refusal) {
    refused.abort();
    if (discard) void started.then((outcome) => (outcome.ok ? discard(outcome.value) : undefined)).catch(() => undefined);
    throw refusal;
  }
  const outcome = await started;
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** The model's answer to a prepared call under its hold (startUnderHold); engine failures become the error envelope. */
export const generateUnderHold = (ctx: RequestContext, prepared: PreparedCall, signal: AbortSignal): Promise<GenerateResult> =>
  startUnderHold(prepared, signal, (underHold) =>
    ctx.engine.generate(prepared.request, underHold).catch((error: unknown) => {
      throw apiErrorOf(ctx, error);
    }),
  );

/** Tokens of what a stream had sent when its client left: the input plus the output delivered. */
export function usageOfCutStream(prepared: PreparedCall, text: string, calls: readonly EngineToolCall[]): EngineUsage {
  return {
    input_tokens: prepared.inputTokens,
    output_tokens: countTokens(text) + countToolCallTokens(calls),
    cached_tokens: 0,
    reasoning_tokens: 0,
    source: 'tokenizer',
  };
}

export type StoredStatus = (typeof modelResponses.$inferInsert)['status'];

export interface Settlement {
  id: string;
  object: 'response' | 'chat.completion';
  status: StoredStatus;
  stream: boolean;
  usage: EngineUsage;
  /** Credits to charge (0 for a failed call); the balance is taken at most to zero. */
  credits: number;
  request: Record<string, unknown>;
  /** A response's turn size for `previous_response_id` (model_responses.turn_chars); null for chat. */
  turnChars?: number | null;
  /** The body as the caller receives it, given the credits actually charged. */
  body: (creditsCharged: number) => Record<string, unknown>;
  /** A chat completion's metadata as stored (model_responses.metadata); a response keeps its in `body`. */
  metadata?: Record<string, string> | null;
  /** The conversation a response read: its id and the sequence numbers of the first and last item given. */
  conversation?: { id: string; from: number | null; to: number | null } | null;
  /** More writes (CTEs) for the same statement, done only when `when` holds: the charge went through. */
  alsoWrite?: ((when: SQL) => SQL) | null;
}

/**
 * Charges the call and stores its result in one statement (DECISIONS.md, Credits): the ledger row and the
 * stored response exist together or not at all. Returns the body with the credits charged and the
 * Budget-Alert header value.
 */
export async function settleModelCall(
  ctx: RequestContext,
  prepared: PreparedCall,
  settlement: Settlement,
): Promise<{ body: Record<string, unknown>; budgetAlert: string | undefined; charged: number }> {
  await prepared.held;
  const now = ctx.now();
  const description = ctx.engine.describe();
  // DECISIONS.md: a stream left before its first token costs nothing.
  if (settlement.status === 'cancelled' && settlement.usage.output_tokens === 0) settlement = { ...settlement, credits: 0 };
  // The body is built for the full price; a charge that emptied the balance took less, and the statement
  // writes what it took into the stored body's `usage.credits_used` (the one place a body names it).
  const body = settlement.body(settlement.credits);
  const conversation = settlement.conversation;
  // `store: false`: the text never reaches the database (nor a statement log), and no row is inserted.
  const kept = (value: unknown) => (prepared.keep ? JSON.stringify(value) : null);
  // The body as one parameter, read by both branches of the stored body's `case`: written twice, it was
  // serialised, sent and parsed as jsonb twice per call.
  const storedBody = kept(body);
  // The hold's workspace, unless it was deleted while the model answered: then the account is charged and the
  // response stored with no workspace, as the delete leaves the workspace's earlier ledger rows.
  const statement = (workspaceId: string | null) => {
    const charge =
      settlement.credits > 0
        ? chargeCall({
            accountId: ctx.auth.accountId,
            workspaceId,
            apiKeyId: ctx.auth.apiKeyId,
            amount: settlement.credits,
            pricing: 'metered',
            reservationId: prepared.reservationId,
            description: `${settlement.object === 'response' ? 'Response' : 'Chat completion'} ${settlement.id} (${settlement.usage.input_tokens + settlement.usage.output_tokens} tokens)`,
            operationId: ctx.operationId,
            requestId: ctx.requestId,
            now,
          })
        : null;
    // Nothing to charge: the hold is given back in the same statement.
    const settled = charge
      ? sql`with settled as (select * from ${charge.call}), stored as (`
      : sql`with settled as (select 0::bigint as charged), released as (
        delete from ${creditReservations} where ${creditReservations.id} = ${prepared.reservationId}), stored as (`;
    return {
      charge,
      query: sql`${settled}
        insert into ${modelResponses} (id, object, account_id, workspace_id, api_key_id, request_id, persona_id, status, stream, engine,
          upstream_model, request, body, input_tokens, output_tokens, credits_used, turn_chars, conversation_id, conversation_seq_from,
          conversation_seq_to, metadata, created_at)
        select ${settlement.id}, ${settlement.object}, ${ctx.auth.accountId}, ${workspaceId}::text, ${ctx.auth.apiKeyId}::text,
          ${ctx.requestId}::text, ${prepared.personaId}::text, ${settlement.status}, ${settlement.stream}::boolean, ${description.engine},
          ${description.upstream_model ?? null}::text, ${kept(settlement.request)}::jsonb,
          case when settled.charged = ${settlement.credits}::bigint then kept_body.body
            else jsonb_set(kept_body.body, '{usage,credits_used}', to_jsonb(settled.charged)) end,
          ${settlement.usage.input_tokens}::int, ${settlement.usage.output_tokens}::int, settled.charged, ${settlement.turnChars ?? null}::int,
          ${conversation?.id ?? null}::text, ${conversation?.from ?? null}::bigint, ${conversation?.to ?? null}::bigint,
          ${settlement.metadata ? kept(settlement.metadata) : null}::jsonb, ${now.toISOString()}::timestamptz
        from settled cross join (select ${storedBody}::jsonb as body) as kept_body
        where ${prepared.keep}::boolean ${charge ? sql`and settled.result = 'ok'` : sql``}
      )${settlement.alsoWrite ? sql`, ${settlement.alsoWrite(charge ? sql`exists (select 1 from settled where settled.result = 'ok')` : sql`true`)}` : sql``}
      select * from settled`,
    };
  };
  let settling = statement(prepared.workspaceId);
  let executed: unknown;
  try {
    executed = await ctx.db.execute(settling.query);
  } catch (error) {
    if (prepared.workspaceId === null || !foreignKeyViolation(error)?.includes('_workspace_id_')) throw error;
    settling = statement(null);
    executed = await ctx.db.execute(settling.query);
  }
  const { charge } = settling;
  const [row] = rowsOf<Record<string, unknown>>(executed);
  const result = charge ? charge.read(row) : null;
  const charged = result?.charged ?? 0;
  prepared.settled = true;
  ctx.meter.promptTokens += settlement.usage.input_tokens;
  ctx.meter.completionTokens += settlement.usage.output_tokens;
  return { body: charged === settlement.credits ? body : settlement.body(charged), budgetAlert: result ? budgetAlertHeader(result) : undefined, charged };
}

/**
 * The Budget-Alert header for a stream, whose headers go out before the charge: the workspace alert as
 * it stands when the stream opens (set once an earlier charge crossed the threshold). A call prepared
 * with `stream` has it from its hold instead (PreparedCall.budgetAlertReached).
 */
export async function budgetAlertBeforeStream(ctx: RequestContext, workspaceId: string | null): Promise<string | undefined> {
  if (!workspaceId) return undefined;
  const [row] = rowsOf<{ reached: boolean | null }>(
    await ctx.db.execute(sql`select ${budgetAlertReachedSql(sql`${workspaceId}`, billingPeriod(ctx.now()).start)} as reached`),
  );
  return row?.reached === true ? 'workspace' : undefined;
}

/** An engine failure as the error envelope: 502 upstream_error, 504 upstream_timeout (DECISIONS.md). */
export function apiErrorOf(ctx: RequestContext, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    if (error.code !== 'aborted') ctx.log.warn({ engine_error: error.code, upstream_status: error.upstream_status, detail: error.detail }, error.message);
    switch (error.code) {
      case 'upstream_error':
        return apiError('upstream_error', error.message);
      case 'upstream_timeout':
        return apiError('upstream_timeout', error.message);
      case 'structured_output_invalid':
        return apiError('structured_output_invalid', error.message);
      case 'invalid_request':
        return apiError('invalid_parameter', error.message);
      case 'aborted':
        // nginx's 499 "client closed request": nobody reads it, and it does not keep an Idempotency-Key.
        return new ApiError(CLIENT_CLOSED_REQUEST, 'service_unavailable', 'The client closed the connection before the answer was ready.');
      default:
        break;
    }
  }
  const unavailable = dependencyFailure(error);
  if (unavailable) return unavailable;
  ctx.log.error({ err: error }, 'model call failed');
  return errors.internal(ctx.requestId);
}

/** The `error` object of a response that failed after it started (ResponseError). */
export function responseErrorOf(ctx: RequestContext, error: unknown): { code: 'upstream_error' | 'upstream_timeout' | 'internal_error'; message: string } {
  const api = apiErrorOf(ctx, error);
  if (api.code === 'upstream_error' || api.code === 'upstream_timeout') return { code: api.code, message: api.message };
  return { code: 'internal_error', message: api.message };
}
