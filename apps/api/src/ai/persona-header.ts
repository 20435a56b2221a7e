import { apiError } from '../http/errors.js';

/**
 * The persona of a /responses or /chat/completions call: the body's `persona_id`, else the `Persona-Id`
 * header (for libraries that set default headers but cannot add body fields). The body wins when both are
 * given (DECISIONS.md), so a per-call choice overrides a client-wide default.
 */
export function personaIdOf(bodyPersonaId: string | undefined, headers: object): string {
  if (bodyPersonaId) return bodyPersonaId;
  // Node lower-cases header names; the contract has already checked the value's shape.
  const header = (headers as Record<string, unknown>)['persona-id'];
  if (typeof header === 'string' && header.length > 0) return header;
  throw apiError('missing_parameter', 'persona_id is required: give it in the body or in the Persona-Id header.', 'persona_id');
}
