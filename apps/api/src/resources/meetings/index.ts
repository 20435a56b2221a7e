import { resourceModule } from '../module.js';
import { meetingHandlers } from './handlers.js';
import { meetingIsolation, seedMeeting } from './isolation.js';
import { botJobs } from './bot-sync.js';
import { meetingJobs } from './jobs.js';
import { meetingBotOf, meetingsUnconfigured } from './settings.js';

export const meetingsModule = resourceModule({
  tag: 'Meetings',
  handlers: meetingHandlers,
  isolation: meetingIsolation,
  isolationSeed: seedMeeting,
  jobs: (services) => {
    const settings = services.meetings ?? meetingsUnconfigured;
    // Inherits from the services rather than copying them: `services.jobs` is set after the definitions are built.
    const deps = Object.assign(Object.create(services) as typeof services, { transcriber: settings.transcriber, bot: meetingBotOf(services) });
    return [...meetingJobs(deps), ...botJobs(deps)];
  },
});
