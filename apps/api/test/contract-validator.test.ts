import { describe, expect, it } from 'vitest';
import { ContractValidator } from './support/contract.js';

// The contract tests are only as good as this validator: it must reject what the spec forbids.
describe('the contract validator used by every test', () => {
  const validator = new ContractValidator();
  const headers = { 'x-request-id': 'req_test1', 'content-type': 'application/json; charset=utf-8' };
  const emptyList = { object: 'list', data: [], has_more: false, next_cursor: null };

  it('accepts a response that matches the spec', () => {
    expect(validator.check('GET', '/api/v1/workspaces', 200, headers, JSON.stringify(emptyList))).toEqual([]);
  });

  it('rejects a body that breaks the schema, naming the field', () => {
    const body = { ...emptyList, data: [{ id: 42, object: 'workspace' }] };
    const problems = validator.check('GET', '/api/v1/workspaces', 200, headers, JSON.stringify(body));
    expect(problems.join('\n')).toMatch(/\/data\/0/);
  });

  it('rejects an undocumented content type, an error outside the envelope and a malformed header', () => {
    const html = { ...headers, 'content-type': 'text/html' };
    expect(validator.check('GET', '/api/v1/workspaces', 200, html, '<p>hi</p>')).toEqual([expect.stringMatching(/content-type text\/html is not documented/)]);
    // Any other status falls under `default`, which is still the error envelope.
    expect(validator.check('GET', '/api/v1/workspaces', 418, headers, '{}')).not.toEqual([]);
    const problems = validator.check('GET', '/api/v1/workspaces', 200, { ...headers, 'ratelimit-limit': 'many' }, JSON.stringify(emptyList));
    expect(problems).toEqual([expect.stringMatching(/^header RateLimit-Limit=many/)]);
  });

  it('rejects an error body outside the envelope on an unknown route', () => {
    expect(validator.check('GET', '/api/v1/nowhere', 404, headers, JSON.stringify({ message: 'nope' }))).not.toEqual([]);
  });
});
