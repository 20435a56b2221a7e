// A Redocly decorator, run by `redocly bundle`: every operation of the bundle declares the error statuses
// any request can get, whatever the operation — so the contract lists every status the server sends
// without repeating them in each path file. The source keeps what is specific to an operation; an
// operation that declares one of these statuses itself keeps its own.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RESPONSES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'components', 'responses');

/**
 * A response file of components/responses (written as JSON, which is YAML, so that the plugin needs no
 * parser package wherever Redocly loads it from) with its relative `$ref`s (`../headers/X.yaml`) made bundle-local. */
function loadResponse(name) {
  const localRefs = (node) => {
    if (Array.isArray(node)) return node.map(localRefs);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === '$ref' && typeof value === 'string' ? value.replace(/^\.\.\/(\w+)\/([\w-]+)\.yaml$/, '#/components/$1/$2') : localRefs(value),
      ]),
    );
  };
  return localRefs(JSON.parse(readFileSync(join(RESPONSES_DIR, `${name}.yaml`), 'utf8')));
}

/** Responses only this decorator references: they enter the bundle here (their files say so). */
const ADDED_HERE = ['RequestTimeout', 'UnsupportedMediaType', 'HeadersTooLarge', 'ServiceUnavailable'];

/** Status → response component, for every operation, for those with a JSON body, and for those that need a key. */
const EVERY = {
  400: 'BadRequest',
  408: 'RequestTimeout',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};
const WITH_BODY = { 413: 'RequestTooLarge', 415: 'UnsupportedMediaType' };
const WITH_KEY = { 401: 'Unauthorized' };
/** An operation that names a resource (a path parameter, or a `…_id` filter such as `workspace_id`) can find none. */
const NAMES_A_RESOURCE = { 404: 'NotFound' };

function commonResponses() {
  let rootSecurity = [];
  return {
    Root: {
      enter(root) {
        rootSecurity = root.security ?? [];
      },
      leave(root) {
        root.components ??= {};
        root.components.responses ??= {};
        for (const name of ADDED_HERE) root.components.responses[name] ??= loadResponse(name);
      },
    },
    Operation: {
      leave(operation, ctx) {
        const responses = (operation.responses ??= {});
        // As walk.js's requiresApiKey: `security: []` or an alternative `{}` makes the key optional.
        const security = operation.security ?? rootSecurity;
        const needsKey = security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
        const add = (map) => {
          for (const [status, name] of Object.entries(map)) responses[status] ??= { $ref: `#/components/responses/${name}` };
        };
        add(EVERY);
        if (operation.requestBody) add(WITH_BODY);
        if (needsKey) add(WITH_KEY);
        const parameters = (operation.parameters ?? []).map((parameter) => (parameter.$ref ? ctx.resolve(parameter).node : parameter)).filter(Boolean);
        if (parameters.some((parameter) => parameter.in === 'path' || (parameter.in === 'query' && /_id$/.test(parameter.name)))) add(NAMES_A_RESOURCE);
        // JSON object keys keep insertion order: statuses in ascending order, `default` last.
        const sorted = Object.keys(responses).sort((a, b) => (a === 'default' ? 1 : b === 'default' ? -1 : a.localeCompare(b)));
        const copy = Object.fromEntries(sorted.map((key) => [key, responses[key]]));
        for (const key of Object.keys(responses)) delete responses[key];
        Object.assign(responses, copy);
      },
    },
  };
}

export default function personaPlugin() {
  return { id: 'persona', decorators: { oas3: { 'common-responses': commonResponses } } };
}
