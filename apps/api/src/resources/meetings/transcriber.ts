import type { Config } from '../../config.js';
import { buildTranscript, type ParsedTranscript } from './transcript-parse.js';

/** Speech-to-text for imported recordings (an OpenAI-compatible `/audio/transcriptions` server). */
export interface Transcriber {
  transcribe(audio: Buffer, fileName: string, contentType: string, signal: AbortSignal): Promise<ParsedTranscript>;
}

export class TranscriptionError extends Error {
  override name = 'TranscriptionError';
}

/** OpenAI's limit for one upload to /audio/transcriptions; larger recordings are refused with the reason. */
export const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024;

interface VerboseTranscription {
  text?: string;
  language?: string;
  duration?: number;
  segments?: { start: number; end: number; text: string; avg_logprob?: number }[];
}

/**
 * The OpenAI-compatible client (OpenAI, faster-whisper-server, LocalAI, vLLM…): `verbose_json` gives
 * segment times; such servers do not diarise, so every segment is `Speaker 1`.
 */
export function openAiTranscriber(options: { baseUrl: string; model: string; apiKey?: string | undefined }): Transcriber {
  return {
    async transcribe(audio, fileName, contentType, signal) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(audio)], { type: contentType }), fileName);
      form.append('model', options.model);
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`, {
        method: 'POST',
        body: form,
        headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
        signal,
      });
      if (!response.ok) throw new TranscriptionError(`The speech-to-text server answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
      const result = (await response.json()) as VerboseTranscription;
      const segments = result.segments?.length ? result.segments : result.text ? [{ start: 0, end: result.duration ?? 0, text: result.text }] : [];
      if (segments.length === 0) throw new TranscriptionError('The speech-to-text server heard no speech in the recording.');
      return buildTranscript(
        segments.map((segment) => ({
          speaker: 'Speaker 1',
          start: segment.start,
          end: segment.end,
          text: segment.text.trim(),
          // avg_logprob → a 0–1 confidence, as Whisper reports it.
          ...(typeof segment.avg_logprob === 'number' ? { confidence: Math.exp(segment.avg_logprob) } : {}),
        })),
      );
    },
  };
}

/** The transcriber the configuration names (TRANSCRIPTION_BASE_URL, TRANSCRIPTION_MODEL, TRANSCRIPTION_API_KEY); none when unset. */
export function transcriberFromConfig(config: Pick<Config, 'TRANSCRIPTION_BASE_URL' | 'TRANSCRIPTION_MODEL' | 'TRANSCRIPTION_API_KEY'>): Transcriber | null {
  if (!config.TRANSCRIPTION_BASE_URL) return null;
  return openAiTranscriber({ baseUrl: config.TRANSCRIPTION_BASE_URL, model: config.TRANSCRIPTION_MODEL, apiKey: config.TRANSCRIPTION_API_KEY });
}
