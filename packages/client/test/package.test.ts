import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = new URL('../dist/', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };

describe('the built package', () => {
  it('imports only its dependencies and its own modules at run time: no Node built-ins (browsers)', () => {
    const specifiers = readdirSync(dist)
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) =>
        [...readFileSync(new URL(file, dist), 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!),
      );
    expect(specifiers.length).toBeGreaterThan(0);
    const external = [...new Set(specifiers.filter((specifier) => !specifier.startsWith('.')))].sort();
    expect(external).toEqual(['eventsource-parser/stream', 'openapi-fetch']);
    expect(external.every((specifier) => Object.keys(pkg.dependencies).some((name) => specifier === name || specifier.startsWith(`${name}/`)))).toBe(true);
  });
});
