import type { FastifyRequest } from 'fastify';
import { apiError, type ApiError } from './errors.js';

/**
 * The limits every request value meets before the contract's schemas see it (DECISIONS.md, Requests):
 * no NUL character (PostgreSQL cannot store one in text), no unpaired UTF-16 surrogate (not a
 * character: it cannot be stored as UTF-8, and would come back as U+FFFD), and JSON nested at most
 * MAX_JSON_DEPTH levels (deeper is no real request, and recursive validation would run out of stack).
 * Checked in one place for JSON bodies, query strings and path parameters, keys as well as values.
 */
export const MAX_JSON_DEPTH = 64;

/** The longest field name an error message or `param` repeats; longer ones are cut (an unknown key can be 1 MiB). */
export const MAX_ECHOED_NAME = 64;

const NUL = '\u0000';

/** `name` as it may appear in a message: at most MAX_ECHOED_NAME characters, never a lone surrogate or NUL. */
export function echoedName(name: string): string {
  const clean = name.toWellFormed().replaceAll(NUL, '\uFFFD');
  if (clean.length <= MAX_ECHOED_NAME) return clean;
  return `${clean.slice(0, MAX_ECHOED_NAME - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/** The dotted `param` of a value: its path, each segment bounded and made printable. */
function paramOf(prefix: string | null, path: (string | number)[]): string | null {
  const parts = path.map((part) => echoedName(String(part)));
  const joined = [prefix, ...parts].filter((part) => part !== null && part !== '').join('.');
  return joined === '' ? null : joined;
}

function problemOf(text: string): string | null {
  if (text.includes(NUL)) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!text.isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not a character';
  return null;
}

/**
 * The first fault in `value` (a parsed body, the query or the path parameters), or null. Iterative, so
 * a hostile nesting depth cannot exhaust the stack here either.
 */
export function inputFault(value: unknown, where: 'body' | 'query' | 'path'): ApiError | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (typeof node === 'string') {
      const problem = problemOf(node);
      if (problem) return fault(where, path, problem);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) {
      return apiError('invalid_parameter', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`, paramOf(null, path.slice(0, 8)));
    }
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) stack.push({ value: node[index], path: [...path, index] });
      continue;
    }
    const entries = Object.entries(node);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index] as [string, unknown];
      const problem = problemOf(key);
      if (problem) return fault(where, path, `has a field name that ${problem}`);
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

function fault(where: 'body' | 'query' | 'path', path: (string | number)[], problem: string): ApiError {
  const param = paramOf(null, path);
  const subject = param ?? (where === 'body' ? 'The request body' : where === 'query' ? 'The query string' : 'The path');
  return apiError('invalid_parameter', `${subject} ${problem}.`, param);
}

/** The preValidation hook: refuses a request whose body, query or path breaks the limits above (400). */
export async function rejectUnstorableInput(request: FastifyRequest): Promise<void> {
  const failure =
    inputFault(request.params, 'path') ??
    inputFault(request.query, 'query') ??
    // A raw body (the upload target) is a stream, checked by its handler.
    (isPlainJson(request.body) ? inputFault(request.body, 'body') : null);
  if (failure) throw failure;
}

function isPlainJson(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return typeof body === 'string';
  const prototype = Object.getPrototypeOf(body);
  return Array.isArray(body) || prototype === Object.prototype || prototype === null;
}
