// redocly.yaml's rules are on (a misspelt rule or option would silently do nothing): one lint run of a
// document that breaks each of them, through scripts/redocly.mjs, which must keep errors and drop only the
// Node 20 banner.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_DIR } from './support/bundle.js';

const BROKEN = `openapi: 3.1.0
info: {title: Broken, version: 1.0.0, description: d, license: {name: MIT, identifier: MIT}}
servers: [{url: 'https://api.broken.example/v1'}]
security: [{Bearer: []}]
tags: [{name: Widgets}]
paths:
  /widgets/{id}/getThing:
    get:
      operationId: getThing
      tags: [Widgets, Undeclared]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: ids, in: query, schema: {type: array, items: {type: string}}}
      responses:
        '200': {description: ok, content: {text/plain: {schema: {type: string}}}}
  /widgets/{id}:
    put:
      summary: Replace a widget
      description: d
      operationId: putWidget
      tags: [Widgets]
      parameters: [{name: id, in: path, required: true, description: Id., schema: {type: string}}]
      requestBody: {content: {application/xml: {schema: {type: object}}}}
      responses:
        '200': {description: ok, headers: {X-Request-Id: {description: r, schema: {type: string}}}}
        '400': {description: bad}
  /widgets/mine/{name}:
    get:
      summary: Ambiguous with /widgets/{id}/getThing, which is allowed
      description: d
      operationId: getMine
      tags: [Widgets]
      parameters: [{name: name, in: path, required: true, description: Name., schema: {type: string}}]
      responses:
        '200': {description: ok, headers: {RateLimit-Limit: {schema: {type: integer}}, RateLimit-Remaining: {schema: {type: integer}}, RateLimit-Reset: {schema: {type: integer}}, X-Request-Id: {schema: {type: string}}}}
        '404': {description: none, headers: {RateLimit-Limit: {schema: {type: integer}}, RateLimit-Remaining: {schema: {type: integer}}, RateLimit-Reset: {schema: {type: integer}}, X-Request-Id: {schema: {type: string}}}}
components:
  securitySchemes: {Bearer: {type: http, scheme: bearer}}
  schemas: {Unused: {type: object}}
`;

let dir: string;
let result: { status: number | null; stdout: string; stderr: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'redocly-config-'));
  copyFileSync(join(PACKAGE_DIR, 'redocly.yaml'), join(dir, 'redocly.yaml'));
  cpSync(join(PACKAGE_DIR, 'plugins'), join(dir, 'plugins'), { recursive: true });
  writeFileSync(join(dir, 'openapi.yaml'), BROKEN);
  const run = spawnSync(process.execPath, [join(PACKAGE_DIR, 'scripts', 'redocly.mjs'), 'lint', 'openapi.yaml', '--format=json'], {
    cwd: dir,
    encoding: 'utf8',
  });
  result = { status: run.status, stdout: run.stdout, stderr: run.stderr };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('redocly.yaml', () => {
  it('reports each configured rule as an error and fails', () => {
    const problems: Array<{ ruleId: string; severity: string }> = JSON.parse(result.stdout).problems;
    expect(new Set(problems.map((p) => p.ruleId))).toEqual(
      new Set([
        'info-contact',
        'tag-description',
        'paths-kebab-case',
        'no-http-verbs-in-paths',
        'operation-tag-defined',
        'operation-summary',
        'operation-description',
        'operation-singular-tag',
        'parameter-description',
        'array-parameter-serialization',
        'operation-4xx-response',
        'response-contains-header',
        'response-mime-type',
        'request-mime-type',
        'no-unused-components',
      ]),
    );
    expect(problems.every((p) => p.severity === 'error')).toBe(true);
    expect(result.status).not.toBe(0);
  });

  it('the wrapper drops the Node 20 banner and nothing else', () => {
    expect(result.stderr).not.toContain('Node.js 20');
    expect(result.stderr).toContain('Validation failed with');
  });
});
