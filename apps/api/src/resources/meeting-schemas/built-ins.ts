import type { MeetingSchemaCategory, MeetingSchemaField, MeetingSchemaFieldInput } from '@persona-api/types';

/**
 * The built-in schemas every account sees (DECISIONS.md, Meeting schemas): fixed ids so clients can name
 * them, real fields with rubrics whose levels describe what the call must show. `version` goes up when a
 * built-in's fields change here.
 */
export interface BuiltInSchema {
  id: string;
  name: string;
  description: string;
  category: MeetingSchemaCategory;
  version: number;
  tags: string[];
  fields: MeetingSchemaFieldInput[];
}

const levels = (max: number, weight: number, ...criteria: [number, string][]) => ({
  max_score: max,
  weight,
  criteria: criteria.map(([score, description]) => ({ score, description })),
});

export const BUILT_IN_SCHEMAS: readonly BuiltInSchema[] = [
  {
    id: 'msch_salesDiscoveryBuiltin',
    name: 'Sales discovery',
    description: 'The current process, its pain and cost, the desired outcome and the agreed next step of a first sales call.',
    category: 'sales_discovery',
    version: 1,
    tags: ['sales', 'discovery'],
    fields: [
      { name: 'current_process', label: 'Current process', field_type: 'text', is_required: true, requires_evidence: true },
      {
        name: 'pain_points',
        label: 'Pain points',
        field_type: 'list',
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          2,
          [0, 'No problem or pain was discussed.'],
          [5, 'A problem was named but its cost or impact was not quantified.'],
          [10, 'The pain was quantified in hours, money or conversion, and the customer wants it fixed.'],
        ),
      },
      { name: 'business_impact', label: 'Business impact', field_type: 'long_text', requires_evidence: true },
      { name: 'team_size', label: 'Number of users', field_type: 'number', requires_evidence: true, crm_field_mapping: { salesforce: 'Opportunity.Seats__c' } },
      {
        name: 'next_step',
        label: 'Next step',
        field_type: 'text',
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'No next step was agreed.'],
          [5, 'A vague follow up was mentioned without a date.'],
          [10, 'A concrete next step was scheduled with a date, such as a demo or a proposal by Friday.'],
        ),
        crm_field_mapping: { salesforce: 'Opportunity.NextStep', hubspot: 'deal.hs_next_step' },
      },
    ],
  },
  {
    id: 'msch_bantBuiltin',
    name: 'BANT qualification',
    description: 'Budget, authority, need and timeline of a sales opportunity, each backed by quotes from the call.',
    category: 'qualification',
    version: 1,
    tags: ['sales', 'bant', 'qualification'],
    fields: [
      {
        name: 'budget',
        label: 'Budget',
        field_type: 'currency',
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'No budget was discussed, or the customer has no budget.'],
          [5, 'Budget is expected but not yet approved.'],
          [10, 'Budget is approved for this purchase, with an amount stated.'],
        ),
        crm_field_mapping: { salesforce: 'Opportunity.Budget__c', hubspot: 'deal.budget' },
      },
      {
        name: 'authority',
        label: 'Decision maker',
        field_type: 'person',
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'The decision maker is unknown.'],
          [5, 'The decision maker was named but is not on the call.'],
          [10, 'The person who signs off is on the call and said so.'],
        ),
      },
      {
        name: 'need',
        label: 'Business need',
        field_type: 'long_text',
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'No need was expressed.'],
          [5, 'A need was expressed without a measurable goal.'],
          [10, 'A pressing need with a measurable goal, such as doubling conversion or saving hours every week.'],
        ),
      },
      {
        name: 'timeline',
        label: 'Target date',
        field_type: 'date',
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'No timeline was given.'],
          [5, 'A rough quarter or month was given.'],
          [10, 'A specific date was given, such as going live by January 15th.'],
        ),
        crm_field_mapping: { salesforce: 'Opportunity.CloseDate' },
      },
      {
        name: 'buying_stage',
        label: 'Buying stage',
        field_type: 'enum',
        enum_options: ['research', 'evaluation', 'negotiation', 'decision'],
      },
    ],
  },
  {
    id: 'msch_meddiccBuiltin',
    name: 'MEDDICC qualification',
    description: 'Metrics, economic buyer, decision criteria and process, paper process, pain, champion and competition.',
    category: 'qualification',
    version: 1,
    tags: ['sales', 'meddicc', 'qualification', 'enterprise'],
    fields: [
      {
        name: 'metrics',
        label: 'Metrics',
        field_type: 'text',
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(5, 1, [0, 'No measurable outcome.'], [5, 'A measurable outcome with a number, such as a percent or hours saved.']),
      },
      { name: 'economic_buyer', label: 'Economic buyer', field_type: 'person', is_required: true, requires_evidence: true },
      { name: 'decision_criteria', label: 'Decision criteria', field_type: 'list', requires_evidence: true },
      { name: 'decision_process', label: 'Decision process', field_type: 'text', requires_evidence: true },
      { name: 'paper_process', label: 'Paper process (legal, security, procurement)', field_type: 'text', requires_evidence: true },
      { name: 'identified_pain', label: 'Identified pain', field_type: 'text', is_required: true, requires_evidence: true },
      {
        name: 'champion',
        label: 'Champion',
        field_type: 'person',
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(5, 1, [0, 'No champion was identified.'], [5, 'A named champion is excited and pushes for the purchase.']),
      },
      { name: 'competition', label: 'Competition', field_type: 'list', requires_evidence: true },
    ],
  },
  {
    id: 'msch_objectionsBuiltin',
    name: 'Objections and competitors',
    description: 'The objections raised, how they were handled, and the competitors the customer named.',
    category: 'objection_competitor',
    version: 1,
    tags: ['sales', 'objections', 'competitors'],
    fields: [
      { name: 'objections', label: 'Objections raised', field_type: 'list', is_required: true, requires_evidence: true },
      {
        name: 'objection_types',
        label: 'Objection types',
        field_type: 'multi_enum',
        enum_options: ['price', 'security', 'timing', 'competitor', 'integration', 'performance', 'legal'],
        requires_evidence: true,
      },
      {
        name: 'competitors',
        label: 'Competitors named',
        field_type: 'multi_enum',
        enum_options: ['Gong', 'Chorus', 'Clari', 'Otter', 'Fireflies', 'Salesloft', 'Outreach'],
        requires_evidence: true,
      },
      {
        name: 'objection_handling',
        label: 'Objection handling',
        field_type: 'text',
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          1,
          [0, 'Objections were ignored.'],
          [5, 'Objections were acknowledged without an answer.'],
          [10, 'Each concern was answered with evidence, such as a security report or a pricing proposal.'],
        ),
      },
      { name: 'pricing_discussed', label: 'Pricing discussed', field_type: 'boolean', requires_evidence: true },
    ],
  },
  {
    id: 'msch_csHealthBuiltin',
    name: 'Customer-success health',
    description: 'Account health, adoption, renewal risk and expansion signals from a check-in or quarterly business review.',
    category: 'cs_health',
    version: 1,
    tags: ['customer success', 'renewals', 'qbr'],
    fields: [
      {
        name: 'health',
        label: 'Account health',
        field_type: 'enum',
        enum_options: ['healthy', 'at_risk', 'critical'],
        is_required: true,
        requires_evidence: true,
        scoring_enabled: true,
        scoring_rubric: levels(
          10,
          2,
          [0, 'The customer says they will cancel, churn or not renew.'],
          [5, 'Renewal is expected but there is a concern about value, a slow product or a competitor.'],
          [10, 'The customer likes the product and describes clear value.'],
        ),
      },
      { name: 'active_users', label: 'Active users', field_type: 'number', requires_evidence: true },
      { name: 'renewal_date', label: 'Renewal date', field_type: 'date', requires_evidence: true, crm_field_mapping: { salesforce: 'Opportunity.CloseDate' } },
      { name: 'risks', label: 'Churn risks', field_type: 'list', requires_evidence: true },
      { name: 'expansion_signals', label: 'Expansion signals', field_type: 'list', requires_evidence: true },
      { name: 'follow_ups', label: 'Follow-ups promised', field_type: 'list', requires_evidence: true },
    ],
  },
  {
    id: 'msch_productFeedbackBuiltin',
    name: 'Product feedback',
    description: 'Feature requests, bugs and what customers like, for the product team.',
    category: 'product_feedback',
    version: 1,
    tags: ['product', 'feedback'],
    fields: [
      { name: 'feature_requests', label: 'Feature requests', field_type: 'list', requires_evidence: true },
      { name: 'bugs', label: 'Bugs and problems reported', field_type: 'list', requires_evidence: true },
      { name: 'praise', label: 'What the customer likes', field_type: 'list', requires_evidence: true },
      { name: 'product_sentiment', label: 'Product sentiment', field_type: 'enum', enum_options: ['positive', 'mixed', 'negative'], requires_evidence: true },
      {
        name: 'severity',
        label: 'Severity of the main problem',
        field_type: 'enum',
        enum_options: ['low', 'medium', 'high'],
        scoring_enabled: true,
        scoring_rubric: levels(
          3,
          1,
          [0, 'No problem was reported.'],
          [1, 'A minor annoyance with a workaround.'],
          [3, 'A problem that puts the renewal or daily work at risk, such as a slow export.'],
        ),
      },
    ],
  },
];

export const BUILT_IN_AUTHOR = 'Persona API';
/** Built-ins list before every custom schema: their list instant is far in the future (year 9000), one ms apart in this order. */
export const BUILT_IN_LIST_AT = (index: number) => new Date(Date.UTC(9000, 0, 1) - index);
export type { MeetingSchemaField };
