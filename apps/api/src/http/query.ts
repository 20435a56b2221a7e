import { parse } from 'fast-querystring';
import type { OperationInfo } from '../contract/spec.js';

const BRACKETED = /^([A-Za-z_][A-Za-z0-9_]*)\[([^[\]]+)\]$/;
/** A `[` as sent or percent-encoded (either case): only such a query string can hold a deepObject key. */
const MAYBE_BRACKETED = /\[|%5b/i;

/**
 * Fastify's query-string parser (fast-querystring, its default) plus the contract's `deepObject`
 * parameters: `metadata[campaign]=spring` becomes `metadata: {campaign: 'spring'}`, as the `openai` SDK
 * and openapi-fetch encode an object. Only parameters the contract declares so are folded; any other
 * bracketed name stays as sent (an unknown parameter, ignored).
 */
export function contractQueryParser(operations: Iterable<OperationInfo>): (query: string) => Record<string, unknown> {
  const deepObjects = new Set([...operations].flatMap((operation) => operation.deepObjectQuery));
  return (query) => {
    const parsed = parse(query) as Record<string, unknown>;
    if (deepObjects.size === 0 || !MAYBE_BRACKETED.test(query)) return parsed;
    for (const key of Object.keys(parsed)) {
      const match = BRACKETED.exec(key);
      if (!match || !deepObjects.has(match[1]!)) continue;
      const [, name, property] = match as unknown as [string, string, string];
      const folded = parsed[name];
      // `metadata=x` beside `metadata[k]=v` keeps the plain value: the contract's check refuses it.
      if (folded === undefined || (typeof folded === 'object' && folded !== null && !Array.isArray(folded))) {
        const object = (folded ?? Object.create(null)) as Record<string, unknown>;
        object[property] = parsed[key];
        parsed[name] = object;
        delete parsed[key];
      }
    }
    return parsed;
  };
}
