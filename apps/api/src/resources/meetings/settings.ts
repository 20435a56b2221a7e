import type { Config } from '../../config.js';
import { transcriberFromConfig, type Transcriber } from './transcriber.js';

/**
 * What the meetings module needs from the configuration, fixed at start (`services.meetings`): the
 * speech-to-text server for imported recordings (null: such imports fail with the reason).
 */
export interface MeetingSettings {
  transcriber: Transcriber | null;
}

/** No speech-to-text server: the default of an app built without configuration (tests, `buildApp`). */
export const meetingsUnconfigured: MeetingSettings = { transcriber: null };

export function meetingSettingsFrom(config: Config): MeetingSettings {
  return { transcriber: transcriberFromConfig(config) };
}
