import { resourceModule } from '../module.js';
import { meetingHandlers } from './handlers.js';
import { meetingIsolation, seedMeeting } from './isolation.js';
import { meetingJobs } from './jobs.js';
import { meetingsUnconfigured } from './settings.js';

export const meetingsModule = resourceModule({
  tag: 'Meetings',
  handlers: meetingHandlers,
  isolation: meetingIsolation,
  isolationSeed: seedMeeting,
  jobs: (services) => meetingJobs({ ...services, transcriber: (services.meetings ?? meetingsUnconfigured).transcriber }),
});
