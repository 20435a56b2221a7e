import { readFileSync } from 'node:fs';
import type { ToolDefinition } from './generate.js';

/** The tools the build generated from the contract (dist/tools.json, beside this module once built). */
export function loadTools(): ToolDefinition[] {
  return JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8')) as ToolDefinition[];
}

export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
