// Each house rule of /work/main/.spectral.yaml against a document that breaks it and one that passes.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ISpectralDiagnostic } from '@stoplight/spectral-core';
import { passingDocument } from './support/house-rule-fixture.js';
import { createLinter, type Lint } from './support/spectral.js';

let lint: Lint;
beforeAll(async () => {
  lint = await createLinter();
});

type Doc = Record<string, any>;
const schemas = (doc: Doc) => doc.components.schemas;

/** Each expectation matches one finding, in any order, and there are no others. */
function expectExactly(out: string[], expected: unknown[]) {
  expect(out).toHaveLength(expected.length);
  expect(out).toEqual(expect.arrayContaining(expected));
}

/** Lints the fixture after `change` and returns the findings of `code` as "path: message" lines. */
async function findings(code: string, change: (doc: Doc) => void = () => {}): Promise<string[]> {
  const doc = passingDocument();
  change(doc);
  const results: ISpectralDiagnostic[] = await lint(doc);
  return results.filter((r) => r.code === code).map((r) => `${r.path.join('.')}: ${r.message}`);
}

describe('the passing document', () => {
  it('breaks no house rule and no other rule of the ruleset that the fixture is meant to follow', async () => {
    const results = await lint(passingDocument());
    const house = results.filter((r) => String(r.code).startsWith('persona-') || r.code === 'oas3-valid-media-example');
    expect(house.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  });
});

describe('persona-list-envelope', () => {
  const code = 'persona-list-envelope';

  it('fires when the envelope lacks has_more / next_cursor', async () => {
    const out = await findings(code, (d) => {
      delete schemas(d).ListEnvelope.properties.has_more;
      schemas(d).ListEnvelope.properties.next_cursor.type = 'string';
    });
    expect(out).toHaveLength(1);
    expect(out[0]).toContain('`has_more` must be a boolean; `next_cursor` must be `[string, null]`');
  });

  it('fires when `data` is not an array or envelope fields are not required', async () => {
    const out = await findings(code, (d) => {
      schemas(d).WidgetList.allOf[1].properties.data = { type: 'object', properties: {} };
      schemas(d).ListEnvelope.required = ['object'];
    });
    expect(out.join()).toContain('`data` must be an array');
    expect(out.join()).toContain('`has_more`, `next_cursor` must be required');
  });

  it('fires when a GET on a collection path does not return a list', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Widget' };
    });
    expect(out).toEqual([expect.stringContaining('GET /widgets reads a collection')]);
  });

  it('fires on a list without cursor fields that is not marked x-unpaginated-list', async () => {
    const out = await findings(code, (d) => delete schemas(d).WidgetSuggestionList['x-unpaginated-list']);
    expect(out).toEqual([expect.stringContaining('POST /widgets/{id}/suggestions returns a list')]);
  });

  it('still requires object: list and data on an x-unpaginated-list schema', async () => {
    const out = await findings(code, (d) => (schemas(d).WidgetSuggestionList.properties.object.const = 'suggestions'));
    expect(out).toEqual([expect.stringContaining('`object` must be the constant `list`')]);
  });

  it('passes the envelope, and the marked unpaginated list', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('persona-list-pagination', () => {
  const code = 'persona-list-pagination';

  it('fires when a GET list lacks limit or cursor', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets'].get.parameters = d.paths['/widgets'].get.parameters.slice(2);
    });
    expect(out).toEqual([expect.stringContaining('the `limit` query parameter is missing; the `cursor` query parameter is missing')]);
  });

  it('fires when limit is not bounded 1–100', async () => {
    const out = await findings(code, (d) => (d.components.parameters.Limit.schema.maximum = 1000));
    expect(out).toEqual([expect.stringContaining('`limit` must be an integer with minimum 1 and maximum 100')]);
  });

  it('does not ask an x-unpaginated-list (or a non-GET) for pagination parameters', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets/{id}/suggestions'].get = structuredClone(d.paths['/widgets/{id}/suggestions'].post);
      d.paths['/widgets/{id}/suggestions'].get.operationId = 'listWidgetSuggestions';
    });
    expect(out).toEqual([]);
  });

  it('passes a list with Limit and Cursor', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('persona-resource-object-const', () => {
  const code = 'persona-resource-object-const';

  it('fires on a resource without an `object` constant', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties.object = { type: 'string', maxLength: 20 };
    });
    expect(out).toEqual([expect.stringContaining('Widget is a resource')]);
  });

  it('fires when the constant is not required, also through allOf', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Gadget = { allOf: [{ $ref: '#/components/schemas/Widget' }, { type: 'object', properties: { size: { type: 'integer' } } }] };
      schemas(d).Widget.required = ['id', 'name', 'created_at'];
    });
    expectExactly(out, [
      expect.stringContaining('Gadget is a resource: its constant `object` property must be required.'),
      expect.stringContaining('Widget is a resource: its constant `object` property must be required.'),
    ]);
  });

  it('passes resources with a required constant and ignores schemas without id + created_at', async () => {
    expect(await findings(code, (d) => (schemas(d).Thing = { type: 'object', properties: { id: { type: 'string', maxLength: 5 } } }))).toEqual([]);
  });
});

describe('persona-snake-case', () => {
  const code = 'persona-snake-case';

  it('fires on camelCase properties, also deep inside a schema', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties.createdBy = { type: 'string', maxLength: 10 };
      schemas(d).WidgetList.allOf[1].properties.data.items = { type: 'object', properties: { Nested_Name: { type: 'string', maxLength: 1 } } };
    });
    expectExactly(out, [
      expect.stringContaining('Property "Nested_Name" must be snake_case'),
      expect.stringContaining('Property "createdBy" must be snake_case'),
    ]);
  });

  it('fires on a query parameter that is not snake_case, but not on header parameters', async () => {
    const out = await findings(code, (d) => (d.paths['/widgets'].get.parameters[2].name = 'namePrefix'));
    expect(out).toEqual([expect.stringContaining('query parameter "namePrefix" must be snake_case')]);
  });

  it('allows header names only inside an object that is the value of a `headers` property', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties['Content-Type'] = { type: 'string', maxLength: 10 };
      schemas(d).UploadUrl.properties.headers.properties['Bad Header'] = { type: 'string', maxLength: 10 };
    });
    expectExactly(out, [expect.stringContaining('Header name "Bad Header"'), expect.stringContaining('Property "Content-Type" must be snake_case')]);
  });

  it('passes snake_case names and the upload headers map', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('persona-operation-id-camel-case', () => {
  const code = 'persona-operation-id-camel-case';

  it('fires on snake_case and PascalCase operationIds', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets'].get.operationId = 'list_widgets';
      d.paths['/widgets'].post.operationId = 'CreateWidget';
    });
    expect(out).toHaveLength(2);
  });

  it('passes camelCase operationIds', async () => {
    expect(await findings(code)).toEqual([]);
  });

  it('leaves uniqueness to operation-operationId-unique, which is still on', async () => {
    expect(await findings('operation-operationId-unique', (d) => (d.paths['/widgets'].post.operationId = 'listWidgets'))).toHaveLength(1);
  });
});

describe('persona-auth-and-rate-limit-responses', () => {
  const code = 'persona-auth-and-rate-limit-responses';

  it('fires when an operation lacks 401 or 429', async () => {
    const out = await findings(code, (d) => {
      delete d.paths['/widgets'].get.responses['401'];
      delete d.paths['/widgets/{id}'].get.responses['429'];
    });
    expectExactly(out, [
      expect.stringMatching(/^paths\.\/widgets\.get\.responses: .*missing: .*401/),
      expect.stringMatching(/^paths\.\/widgets\/\{id\}\.get\.responses: .*missing: .*429/),
    ]);
  });

  it('passes operations with both', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('persona-error-response-schema', () => {
  const code = 'persona-error-response-schema';

  it('fires on an inline error schema and on an error response without a JSON body', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets'].post.responses['404'].content['application/json'].schema = { type: 'object', properties: {} };
      d.paths['/widgets/{id}'].get.responses['409'] = { description: 'Conflict.' };
    });
    expectExactly(out, [
      expect.stringContaining('Error response 404 (application/json) must use'),
      expect.stringContaining('The 409 response of GET /widgets/{id} must have an application/json body'),
    ]);
  });

  it('reports a wrong shared error response once, where it is defined', async () => {
    const out = await findings(code, (d) => {
      d.components.responses.UnexpectedError.content['application/json'].schema = { $ref: '#/components/schemas/Widget' };
    });
    expect(out).toEqual([expect.stringMatching(/^components\.responses\.UnexpectedError\.content\.application\/json\.schema: /)]);
  });

  it('passes ErrorResponse everywhere, whether inline or through a component response', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('persona-typed-free-form', () => {
  const code = 'persona-typed-free-form';

  it('fires on additionalProperties: true and on an untyped additionalProperties', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties.metadata.additionalProperties = true;
      schemas(d).Widget.properties.extra = { type: 'object', maxProperties: 5, additionalProperties: {} };
    });
    expectExactly(out, [
      expect.stringContaining('`additionalProperties: true` accepts any unknown field'),
      expect.stringContaining('`additionalProperties` has no type'),
    ]);
  });

  it('fires on a map without maxProperties', async () => {
    const out = await findings(code, (d) => delete schemas(d).Widget.properties.metadata.maxProperties);
    expect(out).toEqual([expect.stringContaining('A map (typed additionalProperties) must declare maxProperties.')]);
  });

  it('fires on a bare object and on an untyped value unless marked x-free-form', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties.settings = { type: 'object', description: 'Anything.' };
      delete schemas(d).Widget.properties.value['x-free-form'];
    });
    expectExactly(out, [
      expect.stringMatching(/properties\.settings: Object with no declared shape/),
      expect.stringMatching(/properties\.value: Schema has no type/),
    ]);
  });

  it('fires on an x-free-form object without maxProperties', async () => {
    const out = await findings(code, (d) => delete schemas(d).Widget.properties.parameters.maxProperties);
    expect(out).toEqual([expect.stringContaining('must still declare maxProperties')]);
  });

  it('passes typed maps, closed request bodies, marked free-form values, and propertyNames', async () => {
    const out = await findings(code, (d) => {
      schemas(d).Widget.properties.metadata.propertyNames = { pattern: '^[a-z]+$', maxLength: 40 };
    });
    expect(out).toEqual([]);
  });
});

describe('persona-bounded-values', () => {
  const code = 'persona-bounded-values';

  it('fires on an unbounded string or array in a schema', async () => {
    const out = await findings(code, (d) => {
      delete schemas(d).Widget.properties.name.maxLength;
      delete schemas(d).Widget.properties.tags.maxItems;
    });
    expectExactly(out, [expect.stringMatching(/properties\.name: String must be bounded/), expect.stringMatching(/properties\.tags: Array must be bounded/)]);
  });

  it('fires on unbounded parameter and header strings (which the OWASP rules skip)', async () => {
    const out = await findings(code, (d) => {
      delete d.components.parameters.Cursor.schema.maxLength;
      delete d.paths['/widgets'].post.parameters[0].schema.maxLength;
      d.components.responses.TooManyRequests.headers['X-Request-Id'] = { description: 'Id.', schema: { type: 'string' } };
    });
    expectExactly(out, [
      expect.stringMatching(/^components\.parameters\.Cursor\.schema: String \(in a parameter\)/),
      expect.stringMatching(/^components\.responses\.TooManyRequests\.headers\.X-Request-Id\.schema: String \(in a header\)/),
      expect.stringMatching(/^paths\.\/widgets\.post\.parameters\.0\.schema: String \(in a parameter\)/),
    ]);
  });

  it('passes maxLength, enum, const and date-time strings, and arrays with maxItems', async () => {
    expect(await findings(code)).toEqual([]);
  });
});

describe('oas3-valid-media-example (spectral:oas, minus text/event-stream)', () => {
  const code = 'oas3-valid-media-example';

  it('still checks JSON media examples', async () => {
    const out = await findings(code, (d) => {
      d.paths['/widgets/{id}'].get.responses['200'].content['application/json'].examples = { bad: { value: { id: 5 } } };
    });
    expect(out.length).toBeGreaterThan(0);
  });

  it('reports a bad example of a shared response even after the same response passed clean', async () => {
    expect(await findings(code)).toEqual([]); // the clean Unauthorized response is now known to pass
    const out = await findings(code, (d) => {
      d.components.responses.Unauthorized.content['application/json'].examples = { bad: { value: { error: { message: 1 } } } };
    });
    // Spectral reports a finding in a shared component once, at the component.
    expect(out).toEqual([expect.stringMatching(/^components\.responses\.Unauthorized\.content\.application\/json\.examples\.bad\.value\.error: /)]);
  });

  it('does not judge an SSE transcript against the event schema (the example test does)', async () => {
    expect(await findings(code)).toEqual([]);
  });
});
