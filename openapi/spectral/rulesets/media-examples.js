// spectral:oas's oas3-valid-media-example, minus `text/event-stream` media types. A stream's schema is the
// union of its events (the payload of each `data:` line) while its example is a whole SSE transcript (a
// string), so the stock rule can only fail there. test/examples-match-schemas.test.ts validates those
// transcripts event by event instead. Everything else (JSON bodies, headers, parameters) is checked as before.
import { oas } from '@stoplight/spectral-rulesets';

const stock = oas.rules['oas3-valid-media-example'];
const HAS_EXAMPLE = "@ && @.schema && (@.example !== void 0 || @.examples)";

export default {
  rules: {
    'oas3-valid-media-example': {
      ...stock,
      given: [
        `$..content[?(@property !== 'text/event-stream' && ${HAS_EXAMPLE})]`,
        ...stock.given.filter((path) => !path.startsWith('$..content')),
      ],
    },
  },
};
