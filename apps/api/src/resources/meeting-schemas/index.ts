import { resourceModule } from '../module.js';
import { meetingSchemaHandlers } from './handlers.js';
import { meetingSchemaIsolation, seedMeetingSchema } from './isolation.js';
import { schemaResultJobs } from './jobs.js';

export const meetingSchemasModule = resourceModule({
  tag: 'Meeting schemas',
  handlers: meetingSchemaHandlers,
  isolation: meetingSchemaIsolation,
  isolationSeed: seedMeetingSchema,
  jobs: (services) => schemaResultJobs(services),
});
