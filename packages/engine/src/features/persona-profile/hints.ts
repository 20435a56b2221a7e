// The creation hints a persona profile copies into its details as given, on either engine.
export const HINT_FIELDS = [
  'role_title',
  'seniority',
  'industry',
  'company_size',
  'life_stage',
  'age_band',
  'income_band',
  'locale_scope',
  'locale_value',
  'goals',
  'pains',
  'channels',
] as const;
