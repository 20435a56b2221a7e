import { describe, expect, it } from 'vitest';
import { contentRange, parseRange } from '../../../src/resources/files/range.js';

describe('parseRange', () => {
  it('reads one range in its three forms, clamped to the object', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ start: 990, end: 999 });
  });

  it('serves the whole object for no, several, other-unit or malformed ranges', () => {
    for (const header of [undefined, 'bytes=0-1,5-9', 'items=0-1', 'bytes=-', 'bytes=5-1', 'bytes=a-b', 'bytes 0-1']) {
      expect(parseRange(header, 1000), String(header)).toBeNull();
    }
  });

  it('is unsatisfiable past the end or for an empty suffix', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=1000-2000', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
  });

  it('formats Content-Range for 206 and 416', () => {
    expect(contentRange(1000, { start: 0, end: 99 })).toBe('bytes 0-99/1000');
    expect(contentRange(1000)).toBe('bytes */1000');
  });
});
