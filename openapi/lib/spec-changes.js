// The changelog between two bundled contracts (Redocly bundles: every $ref is local), oasdiff-style:
// operations, parameters, request and response fields, required/optional, enum values, bounds, error
// statuses and examples, each change marked breaking or not with one sentence saying why.
// Schemas are compared per operation and direction, because the same change breaks a request and not a
// response (a field made required) or the reverse (a field removed).
import { HTTP_METHODS, deref, isObject } from '../spectral/lib/openapi-walk.js';

/**
 * @typedef {object} Change
 * @property {string | null} operation `POST /widgets`, or null for a document-level change
 * @property {string} where           `request body`, `response 200`, `query parameter limit`, …
 * @property {string} field           dotted path of the field (`items[].name`), or '' for the whole place
 * @property {string} message         what changed
 * @property {boolean} breaking       whether existing clients can break
 * @property {string} [why]           one sentence: how it breaks clients (breaking changes only)
 */

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const typeList = (schema) => (typeof schema?.type === 'string' ? [schema.type] : Array.isArray(schema?.type) ? [...schema.type] : []);
const code = (value) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const joinField = (field, name) => (field ? `${field}.${name}` : name);

// Bounds keywords: `upper` ones limit from above (a request lowering one breaks senders), the others from below.
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'];
const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'];

/** Operations of a bundle keyed `METHOD /path`. */
function operationsOf(doc) {
  const out = new Map();
  for (const [pathKey, rawItem] of Object.entries(doc?.paths ?? {})) {
    const { node: item } = deref(doc, rawItem, ['paths', pathKey]);
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      if (isObject(item[method])) out.set(`${method.toUpperCase()} ${pathKey}`, { operation: item[method], pathItem: item });
    }
  }
  return out;
}

function parametersOf(doc, { operation, pathItem }) {
  const byKey = new Map();
  for (const list of [pathItem.parameters, operation.parameters]) {
    for (const raw of Array.isArray(list) ? list : []) {
      const { node } = deref(doc, raw, []);
      if (isObject(node)) byKey.set(`${node.in} parameter ${node.name}`, node);
    }
  }
  return byKey;
}

/**
 * A schema with its $ref followed and its allOf branches merged (properties, required, and the first value
 * of every other keyword), which is how the house conventions compose schemas (`allOf: [ListEnvelope, …]`).
 */
function flatten(doc, schema) {
  const out = { properties: {}, required: new Set(), refs: [] };
  const seen = new Set();
  const visit = (node) => {
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      if (seen.has(node.$ref)) return;
      seen.add(node.$ref);
      out.refs.push(node.$ref);
      visit(deref(doc, { $ref: node.$ref }, []).node);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && isObject(value)) {
        for (const [name, prop] of Object.entries(value)) out.properties[name] ??= prop;
      } else if (key === 'required' && Array.isArray(value)) {
        value.forEach((name) => out.required.add(name));
      } else if (key !== 'allOf' && key !== '$ref' && !(key in out)) {
        out[key] = value;
      }
    }
    for (const branch of Array.isArray(node.allOf) ? node.allOf : []) visit(branch);
  };
  visit(schema);
  return out;
}

/** The const tag that tells a union branch apart (`type` or `object`), else null. */
function branchTag(doc, branch) {
  const flat = flatten(doc, branch);
  for (const key of ['type', 'object', 'event']) {
    const tag = flat.properties[key];
    const value = isObject(tag) ? flatten(doc, tag).const : undefined;
    if (value !== undefined) return `${key}: ${value}`;
  }
  return flat.refs.at(-1)?.split('/').pop() ?? null;
}

class ChangeCollector {
  constructor(base, head) {
    this.base = base;
    this.head = head;
    /** @type {Change[]} */
    this.changes = [];
  }

  add(operation, where, field, message, breaking, why) {
    this.changes.push({ operation, where, field, message, breaking, ...(breaking && why ? { why } : {}) });
  }

  /**
   * Compares two schemas of one place. direction is `request` (clients send it) or `response` (clients read
   * it); `visited` stops recursion through self-referencing components.
   */
  schema(op, where, field, baseRaw, headRaw, direction, visited = new Set()) {
    const refKey = `${baseRaw?.$ref ?? ''}|${headRaw?.$ref ?? ''}`;
    if (refKey !== '|') {
      if (visited.has(refKey)) return;
      visited = new Set(visited).add(refKey);
    }
    const base = flatten(this.base, baseRaw);
    const head = flatten(this.head, headRaw);
    const add = (message, breaking, why) => this.add(op, where, field, message, breaking, why);
    const request = direction === 'request';
    const label = field ? `\`${field}\`` : / (parameter|header) /.test(where) ? 'the value' : 'the body';

    // Types: a request may only accept more, a response may only send less.
    const baseTypes = typeList(base);
    const headTypes = typeList(head);
    if (baseTypes.length && headTypes.length && !same([...baseTypes].sort(), [...headTypes].sort())) {
      const added = headTypes.filter((t) => !baseTypes.includes(t));
      const removed = baseTypes.filter((t) => !headTypes.includes(t));
      const breaking = request ? removed.length > 0 : added.length > 0;
      add(
        `type of ${label} changed from ${code(baseTypes.join(' | '))} to ${code(headTypes.join(' | '))}`,
        breaking,
        request ? `Clients sending a ${removed.join(' or ')} for it are now refused.` : `Clients now receive a ${added.join(' or ')} they do not expect.`,
      );
    }
    if (base.format !== head.format && (base.format || head.format)) {
      add(
        `format of ${label} changed from ${code(base.format ?? 'none')} to ${code(head.format ?? 'none')}`,
        request && head.format !== undefined,
        'Values clients send today may not match the new format and are refused.',
      );
    }
    if (base.const !== undefined || head.const !== undefined) {
      if (!same(base.const, head.const)) {
        add(
          `constant value of ${label} changed from ${code(base.const ?? 'none')} to ${code(head.const ?? 'none')}`,
          true,
          request ? 'Clients sending the old value are refused.' : 'Clients checking the old value no longer recognise it.',
        );
      }
    }
    this.enumValues(add, label, base.enum, head.enum, request);
    this.bounds(add, label, base, head, request);
    if (base.pattern !== head.pattern && (base.pattern || head.pattern)) {
      add(
        `pattern of ${label} changed from ${code(base.pattern ?? 'none')} to ${code(head.pattern ?? 'none')}`,
        request && head.pattern !== undefined,
        'Values clients send today may not match the new pattern and are refused.',
      );
    }
    if (!same(base.default, head.default)) {
      add(`default of ${label} changed from ${code(base.default ?? 'none')} to ${code(head.default ?? 'none')}`, false);
    }
    if (!base.deprecated && head.deprecated) add(`${label} is deprecated`, false);
    if (!same(base.examples, head.examples) && (base.examples || head.examples)) add(`examples of ${label} changed`, false);

    this.properties(op, where, field, base, head, direction, visited);

    // Arrays and maps: recurse into their items and values.
    if (isObject(base.items) && isObject(head.items)) {
      this.schema(op, where, `${field}[]`, base.items, head.items, direction, visited);
    }
    if (isObject(base.additionalProperties) && isObject(head.additionalProperties)) {
      this.schema(op, where, `${field}{}`, base.additionalProperties, head.additionalProperties, direction, visited);
    }
    if (request && base.additionalProperties !== false && head.additionalProperties === false && field === '') {
      add(`${label} no longer accepts undeclared fields`, true, 'Clients sending extra fields are now refused.');
    }
    for (const keyword of ['oneOf', 'anyOf']) this.union(op, where, field, keyword, base[keyword], head[keyword], direction, visited);
  }

  enumValues(add, label, baseEnum, headEnum, request) {
    if (!Array.isArray(baseEnum) && !Array.isArray(headEnum)) return;
    if (!Array.isArray(headEnum))
      return add(`${label} is no longer limited to a list of values`, !request, 'Clients handling each listed value may receive others.');
    if (!Array.isArray(baseEnum))
      return add(`${label} is now limited to ${headEnum.map(code).join(', ')}`, request, 'Clients sending another value are now refused.');
    const removed = baseEnum.filter((v) => !headEnum.some((h) => same(h, v)));
    const added = headEnum.filter((v) => !baseEnum.some((b) => same(b, v)));
    if (removed.length) {
      add(
        `enum value${removed.length > 1 ? 's' : ''} ${removed.map(code).join(', ')} removed from ${label}`,
        request,
        `Clients sending ${removed.map(code).join(' or ')} are now refused with a 400.`,
      );
    }
    if (added.length) {
      // DECISIONS.md: enums are closed lists, and clients fall back (on `type`, or a default branch) for values added later.
      add(`enum value${added.length > 1 ? 's' : ''} ${added.map(code).join(', ')} added to ${label}`, false);
    }
  }

  bounds(add, label, base, head, request) {
    for (const keyword of [...UPPER_BOUNDS, ...LOWER_BOUNDS]) {
      const before = base[keyword];
      const after = head[keyword];
      if (same(before, after)) continue;
      const upper = UPPER_BOUNDS.includes(keyword);
      // Tighter: an upper bound added or lowered, a lower bound added or raised.
      const tighter = after !== undefined && (before === undefined || (upper ? after < before : after > before));
      const text =
        before === undefined
          ? `${keyword} ${after} added to ${label}`
          : after === undefined
            ? `${keyword} ${before} removed from ${label}`
            : `${keyword} of ${label} changed from ${before} to ${after}`;
      // A request that narrows refuses what clients send; a response that widens sends what clients did not expect.
      add(
        text,
        request ? tighter : !tighter,
        request ? 'Values clients send today may now be outside the bound and refused.' : 'Clients may now receive values outside the bound they rely on.',
      );
    }
  }

  properties(op, where, field, base, head, direction, visited) {
    const request = direction === 'request';
    const names = new Set([...Object.keys(base.properties), ...Object.keys(head.properties)]);
    for (const name of names) {
      const path = joinField(field, name);
      const inBase = name in base.properties;
      const inHead = name in head.properties;
      const wasRequired = base.required.has(name);
      const isRequired = head.required.has(name);
      const add = (message, breaking, why) => this.add(op, where, path, message, breaking, why);
      if (!inBase) {
        if (request && isRequired) add(`required field \`${path}\` added`, true, 'Existing clients do not send it, so their requests are refused with a 400.');
        else add(`${isRequired ? 'required' : 'optional'} field \`${path}\` added`, false);
        continue;
      }
      if (!inHead) {
        if (request) {
          // House rule: request bodies are `additionalProperties: false`, so a field they no longer declare is refused.
          const closed = head.additionalProperties === false;
          add(`field \`${path}\` removed`, closed, 'Clients still sending it are refused with a 400 (`unknown_parameter`).');
        } else {
          add(`field \`${path}\` removed`, true, 'Clients reading it get `undefined`, and typed clients stop compiling.');
        }
        continue;
      }
      if (!wasRequired && isRequired) {
        add(`field \`${path}\` made required`, request, 'Clients that leave it out are now refused with a 400.');
      } else if (wasRequired && !isRequired) {
        add(`field \`${path}\` made optional`, !request, 'Clients that read it unconditionally may find it missing.');
      }
      this.schema(op, where, path, base.properties[name], head.properties[name], direction, visited);
    }
  }

  union(op, where, field, _keyword, baseBranches, headBranches, direction, visited) {
    if (!Array.isArray(baseBranches) || !Array.isArray(headBranches)) return;
    const request = direction === 'request';
    const keyed = (doc, list) => new Map(list.map((branch, i) => [branchTag(doc, branch) ?? `#${i}`, branch]));
    const before = keyed(this.base, baseBranches);
    const after = keyed(this.head, headBranches);
    const label = field ? `\`${field}\`` : 'the body';
    for (const [tag, branch] of before) {
      if (!after.has(tag)) {
        this.add(op, where, field, `variant \`${tag}\` removed from ${label}`, request, 'Clients sending that variant are now refused.');
      } else {
        this.schema(op, where, field, branch, after.get(tag), direction, visited);
      }
    }
    for (const tag of after.keys()) {
      if (!before.has(tag))
        this.add(op, where, field, `variant \`${tag}\` added to ${label}`, !request, 'Clients handling each known variant may receive one they do not know.');
    }
  }

  content(op, where, baseContent, headContent, direction) {
    const request = direction === 'request';
    const before = isObject(baseContent) ? baseContent : {};
    const after = isObject(headContent) ? headContent : {};
    for (const mediaType of Object.keys(before)) {
      if (!(mediaType in after)) {
        this.add(
          op,
          where,
          '',
          `media type \`${mediaType}\` removed`,
          true,
          request ? 'Clients sending it are refused with a 415.' : 'Clients expecting it receive another format.',
        );
      }
    }
    for (const [mediaType, media] of Object.entries(after)) {
      const old = before[mediaType];
      if (!old) {
        this.add(op, where, '', `media type \`${mediaType}\` added`, false);
        continue;
      }
      const examples = (m) => [m?.example, m?.examples];
      if (!same(examples(old), examples(media))) this.add(op, where, '', `examples changed (${mediaType})`, false);
      if (isObject(old.schema) && isObject(media.schema)) this.schema(op, where, '', old.schema, media.schema, direction);
    }
  }

  parameters(op, baseOp, headOp) {
    const before = parametersOf(this.base, baseOp);
    const after = parametersOf(this.head, headOp);
    for (const [key, param] of before) {
      if (!after.has(key)) {
        // Path and header parameters are part of the call itself; an ignored query parameter changes behaviour.
        this.add(op, key, '', `${key} removed`, true, 'Clients still sending it no longer get the behaviour they asked for, and typed clients stop compiling.');
      } else {
        const next = after.get(key);
        if (!param.required && next.required) this.add(op, key, '', `${key} made required`, true, 'Clients that leave it out are now refused with a 400.');
        if (param.required && !next.required) this.add(op, key, '', `${key} made optional`, false);
        if (!param.deprecated && next.deprecated) this.add(op, key, '', `${key} is deprecated`, false);
        if (!same([param.example, param.examples], [next.example, next.examples])) this.add(op, key, '', 'examples changed', false);
        if (isObject(param.schema) && isObject(next.schema)) this.schema(op, key, '', param.schema, next.schema, 'request');
      }
    }
    for (const [key, param] of after) {
      if (before.has(key)) continue;
      if (param.required) this.add(op, key, '', `required ${key} added`, true, 'Existing clients do not send it, so their requests are refused with a 400.');
      else this.add(op, key, '', `optional ${key} added`, false);
    }
  }

  responses(op, baseResponses, headResponses) {
    const before = isObject(baseResponses) ? baseResponses : {};
    const after = isObject(headResponses) ? headResponses : {};
    const success = (status) => /^2/.test(status);
    for (const status of Object.keys(before)) {
      if (!(status in after)) {
        // A documented error status going away breaks no one; a success status going away changes what clients get.
        this.add(op, `response ${status}`, '', `response ${status} removed`, success(status), 'Clients expecting it now receive another status.');
      }
    }
    for (const [status, raw] of Object.entries(after)) {
      const response = deref(this.head, raw, []).node;
      if (!(status in before)) {
        this.add(
          op,
          `response ${status}`,
          '',
          `${success(status) ? 'success' : 'error'} response ${status} added`,
          success(status),
          'Clients only handle the success statuses documented so far.',
        );
        continue;
      }
      const old = deref(this.base, before[status], []).node;
      const where = `response ${status}`;
      for (const header of Object.keys(old?.headers ?? {})) {
        if (!(header in (response?.headers ?? {}))) this.add(op, where, '', `header \`${header}\` removed`, true, 'Clients reading it no longer get it.');
      }
      for (const [header, rawHeader] of Object.entries(response?.headers ?? {})) {
        if (!(header in (old?.headers ?? {}))) {
          this.add(op, where, '', `header \`${header}\` added`, false);
          continue;
        }
        const before = deref(this.base, old.headers[header], []).node;
        const after = deref(this.head, rawHeader, []).node;
        // Without the status: a shared header changes the same way on every response that carries it.
        const headerWhere = `response header ${header}`;
        if (!same([before?.example, before?.examples], [after?.example, after?.examples])) this.add(op, headerWhere, '', 'examples changed', false);
        if (isObject(before?.schema) && isObject(after?.schema)) this.schema(op, headerWhere, '', before.schema, after.schema, 'response');
      }
      this.content(op, where, old?.content, response?.content, 'response');
    }
  }

  operation(op, baseOp, headOp) {
    const before = baseOp.operation;
    const after = headOp.operation;
    if (before.operationId !== after.operationId) {
      this.add(op, 'operation', '', `operationId changed from ${code(before.operationId ?? 'none')} to ${code(after.operationId ?? 'none')}`, false);
    }
    if (!before.deprecated && after.deprecated) this.add(op, 'operation', '', 'operation deprecated', false);
    if (!same(before.security, after.security))
      this.add(op, 'operation', '', 'security requirements changed', true, 'Clients authenticating the old way may be refused.');
    this.parameters(op, baseOp, headOp);
    const baseBody = deref(this.base, before.requestBody, []).node;
    const headBody = deref(this.head, after.requestBody, []).node;
    if (!baseBody && headBody) {
      this.add(
        op,
        'request body',
        '',
        `${headBody.required ? 'required' : 'optional'} request body added`,
        Boolean(headBody.required),
        'Existing clients send no body, so their requests are refused.',
      );
    } else if (baseBody && !headBody) {
      this.add(op, 'request body', '', 'request body removed', true, 'Clients sending a body are refused or have it ignored.');
    } else if (baseBody && headBody) {
      if (!baseBody.required && headBody.required)
        this.add(op, 'request body', '', 'request body made required', true, 'Clients sending no body are now refused.');
      this.content(op, 'request body', baseBody.content, headBody.content, 'request');
    }
    this.responses(op, before.responses, after.responses);
  }
}

/**
 * Every change between two bundled OpenAPI documents, operation by operation.
 * @returns {Change[]}
 */
export function compareContracts(base, head) {
  const collector = new ChangeCollector(base, head);
  const before = operationsOf(base);
  const after = operationsOf(head);
  for (const [op, baseOp] of before) {
    if (!after.has(op)) collector.add(op, 'operation', '', 'operation removed', true, 'Clients calling it now get a 404.');
    else collector.operation(op, baseOp, after.get(op));
  }
  for (const op of after.keys()) {
    if (!before.has(op)) collector.add(op, 'operation', '', 'operation added', false);
  }
  if (!same(base.servers?.[0]?.url, head.servers?.[0]?.url)) {
    collector.add(
      null,
      'servers',
      '',
      `default server changed from ${code(base.servers?.[0]?.url ?? 'none')} to ${code(head.servers?.[0]?.url ?? 'none')}`,
      true,
      'Clients using the default base URL now call another address.',
    );
  }
  return collector.changes;
}

/**
 * Changes that are the same in many operations (one shared schema) as one entry each, with the list of
 * operations in `operations` (in the order met).
 */
export function groupChanges(changes) {
  const groups = new Map();
  for (const change of changes) {
    const key = JSON.stringify([change.where, change.message, change.breaking]);
    if (!groups.has(key)) groups.set(key, { ...change, operations: [] });
    const { operations } = groups.get(key);
    if (change.operation && !operations.includes(change.operation)) operations.push(change.operation);
  }
  return [...groups.values()];
}

/**
 * What the generated packages would change: `@persona-api/types` exports a type per component schema plus
 * `paths`, `operations` and `components`; `@persona-api/client` re-exports those types, types its calls by
 * `paths`, and bakes in the default server URL and the operations that take no API key.
 */
export function packageSurface(base, head, changes) {
  const names = (doc) => Object.keys(doc?.components?.schemas ?? {});
  const operationIds = (doc) => [...operationsOf(doc).values()].map(({ operation }) => operation.operationId).filter(Boolean);
  const diffLists = (a, b) => ({ added: b.filter((x) => !a.includes(x)), removed: a.filter((x) => !b.includes(x)) });
  const typesExports = diffLists(names(base), names(head));
  const operationExports = diffLists(operationIds(base), operationIds(head));
  const changedTypes = names(head).filter((name) => names(base).includes(name) && !same(base.components.schemas[name], head.components.schemas[name]));
  // Only examples and the default server leave the generated types as they are (examples are not typed).
  const typedChanges = changes.filter((c) => !/^examples changed|^examples of /.test(c.message) && c.where !== 'servers');
  const typesChange = typedChanges.length > 0 || changedTypes.length > 0 || typesExports.added.length + typesExports.removed.length > 0;
  const publicOps = (doc) =>
    [...operationsOf(doc)]
      .filter(
        ([, { operation }]) =>
          Array.isArray(operation.security) && (operation.security.length === 0 || operation.security.some((r) => Object.keys(r).length === 0)),
      )
      .map(([op]) => op);
  const clientOwn = [];
  if (!same(base.servers?.[0]?.url, head.servers?.[0]?.url)) clientOwn.push('its default base URL');
  if (!same(publicOps(base), publicOps(head))) clientOwn.push('the operations it calls without an API key');
  return {
    types: {
      changes: typesChange,
      exportsAdded: typesExports.added,
      exportsRemoved: typesExports.removed,
      changedTypes,
      operationsAdded: operationExports.added,
      operationsRemoved: operationExports.removed,
    },
    client: { changes: typesChange || clientOwn.length > 0, own: clientOwn },
  };
}
