export * from './tenancy.js';
export * from './billing.js';
export * from './content.js';
export * from './ai.js';
export * from '../../resources/files/table.js';
