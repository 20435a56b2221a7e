// spectral:oas's oas3-valid-media-example, minus `text/event-stream` media types. A stream's schema is the
// union of its events (the payload of each `data:` line) while its example is a whole SSE transcript (a
// string), so the stock rule can only fail there. test/examples-match-schemas.test.ts validates those
// transcripts event by event instead. Everything else (JSON bodies, headers, parameters) is checked as before.
import { oas } from '@stoplight/spectral-rulesets';

const stock = oas.rules['oas3-valid-media-example'];
const HAS_EXAMPLE = '@ && @.schema && (@.example !== void 0 || @.examples)';

/**
 * The stock function, minus repeated work: it deep-copies the resolved schema and compiles it with Ajv for
 * every place a media object appears, and a shared response (400, 401, 429, 500, default) appears in every
 * operation, so most of Spectral's time went to compiling the same schema again. An input that validated
 * clean once is clean again (the result depends only on the media object, the options and whether it sits
 * in a request or a response); inputs with findings are always rechecked, so their paths stay exact.
 */
function memoizeClean(check) {
  const clean = new Set();
  return function oasExampleOnce(targetVal, opts, context) {
    const where = [context.path.includes('requestBody'), context.path.includes('responses')];
    const key = JSON.stringify([where, opts, targetVal]);
    if (clean.has(key)) return undefined;
    const results = check(targetVal, opts, context);
    if (!results?.length) clean.add(key);
    return results;
  };
}

export default {
  rules: {
    'oas3-valid-media-example': {
      ...stock,
      then: { ...stock.then, function: memoizeClean(stock.then.function) },
      given: [`$..content[?(@property !== 'text/event-stream' && ${HAS_EXAMPLE})]`, ...stock.given.filter((path) => !path.startsWith('$..content'))],
    },
  },
};
