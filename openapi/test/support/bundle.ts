import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_PATH = join(PACKAGE_DIR, 'dist', 'openapi.yaml');

// An OpenAPI document as plain data; the tests walk it generically.
export type OpenApiDocument = Record<string, any>;

/** The built bundle (`pnpm build` writes it; turbo runs the build before the tests). */
export function loadBundle(): OpenApiDocument {
  let text: string;
  try {
    text = readFileSync(BUNDLE_PATH, 'utf8');
  } catch {
    throw new Error(`${BUNDLE_PATH} is missing: run \`pnpm --filter @persona-api/openapi build\` first.`);
  }
  return parse(text) as OpenApiDocument;
}

/** JSON Pointer (`#/paths/~1workspaces/get`) of a path, for messages that point into the bundle. */
export function pointer(path: ReadonlyArray<string | number>): string {
  return `#/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
