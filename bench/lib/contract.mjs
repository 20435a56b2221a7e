// The contract package (bundle, operations, example requests), reached through the API's dependency on it
// (as the benches reach postgres): request bodies the benches send are the contract's own examples.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { apiDir } from './servers.mjs';

/** A module of a package the API depends on, resolved from the API's folder. */
export const fromApi = (name) => import(pathToFileURL(createRequire(import.meta.url).resolve(name, { paths: [apiDir] })).href);

const { exampleRequest, listOperations, loadBundle } = await fromApi('@persona-api/openapi/document');
/** This checkout's contract, bundled. */
export const spec = loadBundle();
/** Each operation of the contract by `METHOD /template`. */
const operations = new Map(listOperations(spec).map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation]));

/** The operation a label names by its first two words ("METHOD /template …"; a query is left out). */
export function operationOf(label) {
  const [method, target] = label.split(' ');
  const operation = operations.get(`${method} ${target.split('?')[0]}`);
  if (!operation) throw new Error(`"${label}": no operation ${method} ${target} in the contract`);
  return operation;
}

/** The example request body of an operation ("METHOD /template") from the contract, with `overrides` put in (undefined: left out). */
export function example(operation, overrides = {}) {
  const value = exampleRequest(spec, operationOf(operation)).body?.value;
  if (!value) throw new Error(`no request example for ${operation}`);
  const body = { ...value, ...overrides };
  for (const [key, given] of Object.entries(overrides)) if (given === undefined) delete body[key];
  return body;
}
