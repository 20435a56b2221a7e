import type { EngineStreamEvent, GenerateRequest, GenerateResult } from '@persona-api/engine';
import type { Streamed } from '../contract/handler-types.js';
import type { RequestContext } from '../http/context.js';
import { openEventStream, type EventStream } from '../http/sse.js';
import { apiErrorOf, startUnderHold, type PreparedCall } from './model-call.js';

export interface StartedStream {
  /** The first event, already produced: the upstream answered, so the HTTP stream may open. */
  first: EngineStreamEvent | null;
  rest: AsyncIterator<EngineStreamEvent>;
  /** Fires when the client leaves: the drain stops at the next event. */
  signal: AbortSignal;
}

/**
 * Starts the engine's stream and waits for its first event before anything is sent, so a model server
 * that fails or times out before answering is an HTTP 502/504 (DECISIONS.md), not a stream event.
 */
export async function startEngineStream(
  ctx: RequestContext,
  request: GenerateRequest,
  signal: AbortSignal,
  events: AsyncIterable<EngineStreamEvent> = ctx.engine.stream(request, signal),
): Promise<StartedStream> {
  const rest = events[Symbol.asyncIterator]();
  try {
    const step = await rest.next();
    return { first: step.done ? null : step.value, rest, signal };
  } catch (error) {
    throw apiErrorOf(ctx, error);
  }
}

/** Lets pending I/O events (a closed connection) run before the next chunk is produced. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export type OpenedModelStream =
  | { started: StartedStream; stream: EventStream }
  | {
      /** The client left before the model's first event: nothing was sent or charged; the handler returns this. */
      abandoned: Streamed;
    };

/**
 * The common start of a streamed model call (chat completions and responses): the engine's first event,
 * then the SSE stream, with the Budget-Alert header set first because a stream's headers go out before
 * the charge.
 */
export async function openModelStream(
  ctx: RequestContext,
  prepared: PreparedCall,
  signal: AbortSignal,
  /** Events computed by the server instead of the engine's (the offline rule of server-side tools). */
  events?: AsyncIterable<EngineStreamEvent>,
): Promise<OpenedModelStream> {
  // The model starts while the hold may still be taken (overlapHold); a refusal closes it and is the answer.
  const started = await startUnderHold(
    prepared,
    signal,
    (underHold) => startEngineStream(ctx, prepared.request, underHold, events),
    (opened) => opened.rest.return?.(),
  );
  // One turn of the event loop, so a client that left while the request was prepared is noticed; the
  // last before the first event, which goes out without another (drainEngineStream).
  await nextTurn();
  if (signal.aborted) {
    await started.rest.return?.();
    return { abandoned: openEventStream(ctx).abandon() };
  }
  // The workspace's alert as it stood when the hold was taken (set once an earlier charge crossed it).
  if (prepared.budgetAlertReached) ctx.setHeader('budget-alert', 'workspace');
  return { started, stream: openEventStream(ctx) };
}

/** How long a stream may write events without giving the event loop a turn to notice a client that left. */
const YIELD_EVERY_MS = 1;

export interface Drained {
  /** The complete result (`done`), or null when the stream stopped without one. */
  result: GenerateResult | null;
  /** What interrupted the stream after it had started (an EngineError from the model server), if anything. */
  failure: unknown;
}

/**
 * Feeds every event to `onEvent` until `done`, a failure, or the client leaving (the signal). An
 * engine that produces events without waiting (the offline engine) would otherwise write the whole
 * answer before the connection's close is noticed, and a client that left would pay for all of it.
 */
export async function drainEngineStream(
  started: StartedStream,
  onEvent: (event: EngineStreamEvent) => void,
  /** Backpressure: awaited before each event (EventStream.drained), so a slow reader slows the model stream. */
  writable: () => Promise<void> = () => Promise.resolve(),
): Promise<Drained> {
  let result: GenerateResult | null = null;
  try {
    let event = started.first;
    // openModelStream has just given the event loop a turn (a client that left before the first event
    // pays nothing), so the first delta goes out at once: a second turn here delayed it by 6.6 ms on
    // PGlite (bench/README.md).
    let lastTurn = performance.now();
    while (event) {
      // A turn of the event loop delivers a close that happened meanwhile, at least every YIELD_EVERY_MS.
      // A turn per event cost 60 % of the streamed throughput (bench/README.md); an engine that waits for
      // the network turns anyway.
      if (performance.now() - lastTurn >= YIELD_EVERY_MS) {
        await nextTurn();
        lastTurn = performance.now();
      }
      await writable();
      if (started.signal.aborted) return { result: null, failure: null };
      if (event.type === 'done') result = event.result;
      else onEvent(event);
      const step = await started.rest.next();
      event = step.done ? null : step.value;
    }
    return { result, failure: null };
  } catch (failure) {
    return { result: null, failure };
  } finally {
    // Closes the upstream connection if the engine is still reading it.
    await started.rest.return?.().catch(() => undefined);
  }
}
