import type { Config } from '../../config.js';
import type { Clock } from '../../services.js';
import { type MeetingBotProvider, recallProvider } from './recall.js';
import { simulatorProvider } from './simulator.js';
import { transcriberFromConfig, type Transcriber } from './transcriber.js';

/**
 * What the meetings module needs from the configuration, fixed at start (`services.meetings`): the
 * speech-to-text server for imported recordings (null: such imports fail with the reason) and the
 * meeting-bot provider.
 */
export interface MeetingSettings {
  transcriber: Transcriber | null;
  /** The meeting-bot provider (Recall.ai-compatible); null: the development simulator stands in. */
  bot: MeetingBotProvider | null;
}

/** No speech-to-text server: the default of an app built without configuration (tests, `buildApp`). */
export const meetingsUnconfigured: MeetingSettings = { transcriber: null, bot: null };

export function meetingSettingsFrom(config: Config): MeetingSettings {
  return {
    transcriber: transcriberFromConfig(config),
    bot:
      config.RECALL_API_KEY && config.RECALL_WEBHOOK_SECRET
        ? recallProvider({
            apiKey: config.RECALL_API_KEY,
            region: config.RECALL_REGION,
            baseUrl: config.RECALL_BASE_URL,
            webhookSecret: config.RECALL_WEBHOOK_SECRET,
          })
        : null,
  };
}

/**
 * The meeting-bot provider meetings use: the configured one, else the development simulator behind the
 * same interface (it needs only the clock, so it is made where the services are at hand).
 */
export function meetingBotOf(services: { meetings?: MeetingSettings | null; clock: Clock }): MeetingBotProvider {
  return services.meetings?.bot ?? simulatorProvider(services.clock);
}
