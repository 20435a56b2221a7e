// `input_data` against the app's fields (DECISIONS.md): an unknown key is `unknown_parameter`, a missing
// required field `missing_parameter`, a wrong type, an over-long string, a number out of range or a value
// not among `options` `invalid_parameter`, each with `param: input_data.<name>`. Returns the values with
// the fields' defaults applied (what the prompt is rendered from; the stored `input_data` is as sent).
import type { GenerationAppInputField, GenerationInputData, GenerationInputValue } from '@persona-api/types';
import { apiError, errors } from '../../http/errors.js';

const describe = (value: unknown) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`);

function checkValue(field: GenerationAppInputField, value: GenerationInputValue, param: string): void {
  const invalid = (message: string) => errors.invalidParameter(param, `${field.name} ${message}`);
  switch (field.type) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string') throw invalid(`must be a string, not ${describe(value)}.`);
      if (field.required && value.trim() === '') throw invalid('must not be empty.');
      if (field.max_length !== null && value.length > field.max_length)
        throw invalid(`is ${value.length} characters long; at most ${field.max_length} are allowed.`);
      if (field.type === 'text' && /[\r\n]/.test(value)) throw invalid('is a one-line field; remove the line breaks.');
      return;
    case 'select':
      if (typeof value !== 'string') throw invalid(`must be one of ${field.options?.join(', ')}, not ${describe(value)}.`);
      if (!field.options?.includes(value)) throw invalid(`must be one of ${field.options?.join(', ')}; got "${value}".`);
      return;
    case 'multi_select': {
      if (!Array.isArray(value)) throw invalid(`must be an array of ${field.options?.join(', ')}, not ${describe(value)}.`);
      const unknown = value.find((item) => !field.options?.includes(item));
      if (unknown !== undefined) throw invalid(`may only hold ${field.options?.join(', ')}; got "${unknown}".`);
      if (new Set(value).size !== value.length) throw invalid('must not repeat a value.');
      if (field.required && value.length === 0) throw invalid('must hold at least one value.');
      return;
    }
    case 'number':
      if (typeof value !== 'number') throw invalid(`must be a number, not ${describe(value)}.`);
      if (field.minimum !== null && value < field.minimum) throw invalid(`must be at least ${field.minimum}; got ${value}.`);
      if (field.maximum !== null && value > field.maximum) throw invalid(`must be at most ${field.maximum}; got ${value}.`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(`must be true or false, not ${describe(value)}.`);
      return;
  }
}

export function readInputData(fields: readonly GenerationAppInputField[], input: GenerationInputData, appName: string): Record<string, GenerationInputValue> {
  for (const key of Object.keys(input)) {
    if (!fields.some((field) => field.name === key)) {
      throw apiError(
        'unknown_parameter',
        `${appName} has no input field ${key}; its fields are ${fields.map((field) => field.name).join(', ')}.`,
        `input_data.${key}`,
      );
    }
  }
  const values: Record<string, GenerationInputValue> = {};
  for (const field of fields) {
    const param = `input_data.${field.name}`;
    const value = input[field.name];
    if (value === undefined) {
      if (field.default_value !== null) values[field.name] = field.default_value;
      else if (field.required) throw errors.missingParameter(param, `${appName} needs ${field.name} (${field.label}).`);
      continue;
    }
    checkValue(field, value, param);
    values[field.name] = value;
  }
  return values;
}
