// Structural checks over every operation of the bundle (enumerated, never listed by hand), and over the
// source tree: every path file and component file ends up in the bundle under its own name.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deref, operations } from '../spectral/lib/openapi-walk.js';
import { loadBundle, PACKAGE_DIR } from './support/bundle.js';

const doc = loadBundle();
const ops = [...operations(doc)].map((op) => ({ ...op, label: `${op.method.toUpperCase()} ${op.pathKey}` }));
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasExample = (media: unknown) => isObject(media) && (media.example !== undefined || (isObject(media.examples) && Object.keys(media.examples).length > 0));

describe('operations', () => {
  it('there are operations, each with a unique operationId', () => {
    const ids = ops.map((op) => op.operation.operationId);
    console.info(`${ops.length} operations in ${Object.keys(doc.paths ?? {}).length} paths`);
    expect(ops.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe.each(ops.map((op) => [op.label, op] as const))('%s', (_label, op) => {
    it('has an operationId, a summary and exactly one declared tag', () => {
      const declaredTags = new Set((doc.tags ?? []).map((t: { name: string }) => t.name));
      expect(op.operation.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.operation.summary?.trim()).toBeTruthy();
      expect(op.operation.tags).toHaveLength(1);
      expect(declaredTags.has(op.operation.tags[0])).toBe(true);
    });

    it('has an example for every media type of every success response', () => {
      const successes = Object.entries(op.operation.responses ?? {}).filter(([code]) => /^2/.test(code));
      expect(successes.length).toBeGreaterThan(0);
      const missing: string[] = [];
      let mediaTypes = 0;
      for (const [code, raw] of successes) {
        const response = deref(doc, raw, []).node;
        for (const [mediaType, media] of Object.entries(isObject(response?.content) ? response.content : {})) {
          mediaTypes += 1;
          if (!hasExample(media)) missing.push(`${code} ${mediaType}`);
        }
      }
      expect(mediaTypes).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    });

    it('has an example for every JSON request body media type', () => {
      const body = deref(doc, op.operation.requestBody, []).node;
      const jsonMedia = Object.entries(isObject(body?.content) ? body.content : {}).filter(([type]) => /json/.test(type));
      // Raw uploads (application/octet-stream) carry bytes, not an example document.
      expect(jsonMedia.filter(([, media]) => !hasExample(media)).map(([type]) => type)).toEqual([]);
    });
  });
});

describe('source tree', () => {
  const root = parse(readFileSync(join(PACKAGE_DIR, 'openapi.yaml'), 'utf8'));

  it('every file under paths/ is referenced from openapi.yaml', () => {
    const referenced = new Set(Object.values(root.paths ?? {}).map((item: any) => basename(String(item?.$ref))));
    const files = readdirSync(join(PACKAGE_DIR, 'paths')).filter((f) => f.endsWith('.yaml'));
    expect(files.filter((f) => !referenced.has(f))).toEqual([]);
  });

  it('every component file is in the bundle under its own file name (none unused, none renamed)', () => {
    const problems: string[] = [];
    for (const kind of ['schemas', 'parameters', 'responses', 'headers', 'examples']) {
      const dir = join(PACKAGE_DIR, 'components', kind);
      let files: string[] = [];
      try {
        files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
      } catch {
        continue;
      }
      const bundled = new Set(Object.keys(doc.components?.[kind] ?? {}));
      for (const file of files) {
        const name = basename(file, '.yaml');
        if (!bundled.has(name)) problems.push(`components/${kind}/${file} is not used by any operation`);
      }
      // Redocly renames a component whose name collides (`Foo-2`); names must stay file names.
      for (const name of bundled) if (!files.includes(`${name}.yaml`)) problems.push(`components.${kind}.${name} is not a file name`);
    }
    expect(problems).toEqual([]);
  });
});
