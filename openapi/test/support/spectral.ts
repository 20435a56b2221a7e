// Runs the repository's Spectral ruleset (/work/main/.spectral.yaml, with its custom functions) through
// Spectral's JS API, the same ruleset the `lint` script runs on the bundle.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import * as Parsers from '@stoplight/spectral-parsers';
import { builtins } from '@stoplight/spectral-ruleset-bundler/plugins/builtins';
import { commonjs } from '@stoplight/spectral-ruleset-bundler/plugins/commonjs';
import { bundleAndLoadRuleset } from '@stoplight/spectral-ruleset-bundler/with-loader';
import { PACKAGE_DIR } from './bundle.js';

export const RULESET_PATH = join(PACKAGE_DIR, '..', '.spectral.yaml');

export type Lint = (doc: object) => Promise<ISpectralDiagnostic[]>;

export async function createLinter(): Promise<Lint> {
  // The same bundler plugins as the CLI: the OWASP ruleset and spectral-rulesets are CommonJS.
  const ruleset = await bundleAndLoadRuleset(RULESET_PATH, { fs, fetch }, [builtins(), commonjs()]);
  const spectral = new Spectral();
  spectral.setRuleset(ruleset);
  return (doc) => spectral.run(new Document(JSON.stringify(doc, null, 2), Parsers.Json, join(PACKAGE_DIR, 'fixture.json')));
}
