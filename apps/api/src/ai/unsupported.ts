import { apiError } from '../http/errors.js';

/**
 * OpenAI request fields whose value this service cannot honour (DECISIONS.md, "OpenAI request fields"):
 * a 400 `unsupported_parameter` naming the field, never a silent difference from what was asked.
 */
export const unsupported = (param: string, message: string) => apiError('unsupported_parameter', message, param);

/** Throws for the first field of `checks` whose value is given and not honourable. */
export function refuseUnsupported(checks: ReadonlyArray<[param: string, refused: boolean, message: string]>): void {
  for (const [param, refused, message] of checks) if (refused) throw unsupported(param, message);
}
