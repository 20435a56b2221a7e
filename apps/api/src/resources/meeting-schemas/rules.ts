import type { MeetingSchemaField, MeetingSchemaFieldInput } from '@persona-api/types';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';

/**
 * The server rules of a schema's fields (DECISIONS.md, Meeting schemas) the JSON Schema cannot say:
 * unique names, `enum_options` exactly for enum and multi_enum, a rubric with `max_score` and criteria
 * exactly when scoring is on, criteria within `max_score`. Each refusal is a 400 naming the field
 * (`fields.2.enum_options`). A field keeps its id when an earlier version had a field of that name.
 */
export function buildFields(
  inputs: readonly MeetingSchemaFieldInput[],
  previous: readonly MeetingSchemaField[] = [],
  idOf = () => newId('msf'),
): MeetingSchemaField[] {
  const seen = new Map<string, number>();
  const idByName = new Map(previous.map((field) => [field.name, field.id]));
  return inputs.map((input, index) => {
    const at = `fields.${index}`;
    const earlier = seen.get(input.name);
    if (earlier !== undefined) throw errors.invalidParameter(`${at}.name`, `Field names must be unique: fields.${earlier} is already named ${input.name}.`);
    seen.set(input.name, index);
    const choice = input.field_type === 'enum' || input.field_type === 'multi_enum';
    if (choice && !input.enum_options) throw errors.invalidParameter(`${at}.enum_options`, `A ${input.field_type} field needs enum_options (1 to 50 options).`);
    if (!choice && input.enum_options)
      throw errors.invalidParameter(`${at}.enum_options`, `Only enum and multi_enum fields have enum_options; ${input.name} is ${input.field_type}.`);
    if (choice) {
      const folded = input.enum_options!.map((option) => option.trim().toLowerCase());
      const twice = folded.findIndex((option, position) => folded.indexOf(option) !== position);
      if (twice >= 0)
        throw errors.invalidParameter(
          `${at}.enum_options.${twice}`,
          `enum_options must differ (ignoring case): "${input.enum_options![twice]}" is given twice.`,
        );
    }
    const scoring = input.scoring_enabled ?? false;
    const rubric = input.scoring_rubric ?? {};
    if (scoring) {
      if (rubric.max_score === undefined)
        throw errors.invalidParameter(`${at}.scoring_rubric.max_score`, `${input.name} is scored: its scoring_rubric needs max_score.`);
      if (!rubric.criteria || rubric.criteria.length === 0)
        throw errors.invalidParameter(`${at}.scoring_rubric.criteria`, `${input.name} is scored: its scoring_rubric needs at least one criterion.`);
      const over = rubric.criteria.findIndex((criterion) => criterion.score > rubric.max_score!);
      if (over >= 0)
        throw errors.invalidParameter(`${at}.scoring_rubric.criteria.${over}.score`, `A criterion's score must be at most max_score (${rubric.max_score}).`);
    } else if (Object.keys(rubric).length > 0) {
      throw errors.invalidParameter(
        `${at}.scoring_rubric`,
        `${input.name} has a scoring_rubric but scoring_enabled is false; enable scoring or leave the rubric out.`,
      );
    }
    return {
      id: idByName.get(input.name) ?? idOf(),
      name: input.name,
      label: input.label,
      field_type: input.field_type,
      is_required: input.is_required ?? false,
      requires_evidence: input.requires_evidence ?? false,
      enum_options: input.enum_options ?? [],
      scoring_enabled: scoring,
      scoring_rubric: scoring ? { max_score: rubric.max_score!, weight: rubric.weight ?? 1, criteria: rubric.criteria! } : {},
      crm_field_mapping: input.crm_field_mapping ?? {},
      order: index,
    };
  });
}
