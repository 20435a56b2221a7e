/** `error` and the errors it wraps (`cause`: Drizzle puts the driver's error there), outermost first, at most five deep. */
export function* errorChain(error: unknown): Generator<Record<string, unknown>> {
  let current = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}
