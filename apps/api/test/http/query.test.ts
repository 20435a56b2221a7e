import { describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../../src/contract/spec.js';
import { contractQueryParser } from '../../src/http/query.js';

// The query-string parser folds the contract's deepObject parameters (`metadata[key]=value`, as the openai
// SDK and openapi-fetch send an object) and leaves every other name as sent.

const parse = contractQueryParser(listOperations(loadSpec()));

describe('the contract query-string parser', () => {
  it('folds metadata[key]=value pairs, percent-encoded in either case, into one object', () => {
    expect(parse('metadata[campaign]=spring&metadata%5Bregion%5D=eu&metadata%5bowner%5d=ana&limit=2')).toEqual({
      metadata: { campaign: 'spring', region: 'eu', owner: 'ana' },
      limit: '2',
    });
    expect(parse('limit=2&order=desc')).toEqual({ limit: '2', order: 'desc' });
  });

  it('leaves names the contract does not declare as deepObject, a plain value beside pairs, and repeats for the contract check', () => {
    expect(parse('filter[x]=1')).toEqual({ 'filter[x]': '1' });
    expect(parse('metadata=x&metadata[a]=1')).toEqual({ metadata: 'x', 'metadata[a]': '1' });
    expect(parse('metadata[a]=1&metadata[a]=2')).toEqual({ metadata: { a: ['1', '2'] } });
  });

  it('keeps a key named like an Object.prototype member as data', () => {
    const parsed = parse('metadata[__proto__]=x&metadata[constructor]=y') as { metadata: Record<string, string> };
    expect(Object.keys(parsed.metadata)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
