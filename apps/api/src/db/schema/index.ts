// Every table, for drizzle-kit (drizzle.config.ts) and the queries that span resources. A resource's
// tables live in its folder (resources/<tag>/table.ts); the account-level and billing ones here.
export * from './tenancy.js';
export * from './billing.js';
export * from '../../resources/workspaces/table.js';
export * from '../../resources/projects/table.js';
export * from '../../resources/personas/table.js';
export * from '../../resources/responses/table.js';
export * from '../../resources/files/table.js';
export * from '../../resources/video-analyses/table.js';
export * from '../../resources/meetings/table.js';
export * from '../../resources/meeting-schemas/table.js';
export * from '../../resources/focus-groups/table.js';
export * from '../../resources/news/table.js';
export * from '../../resources/brand-voices/table.js';
export * from '../../resources/generations/table.js';
export * from '../../resources/agent/table.js';
export * from '../../resources/console/table.js';
export * from '../../resources/conversations/table.js';
