// The learning job of a brand voice: read every source (recording each outcome), derive the voice with the
// engine's brand-voice feature, store it; no readable source, a model failure or the 10-minute deadline
// make the voice `failed` and refund its 100 credits. Idempotent by voice id: the row is the truth.
import { brandVoice, type BrandVoiceSourceText } from '@persona-api/engine';
import type { BrandVoiceSourceOutcome, BrandVoiceSources } from '@persona-api/types';
import { inArray } from 'drizzle-orm';
import { refundCredits } from '../../billing/credits.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { Services } from '../../services.js';
import { files } from '../files/table.js';
import type { BrandVoiceRow } from './mapper.js';
import { clip, readDocumentSource, readUrlSource, type SourceText } from '../../ai/source-text.js';
import { lockBrandVoice, updateBrandVoiceRow } from './repository.js';

export const LEARN_BRAND_VOICE = 'brand-voice.learn';
/** DECISIONS.md: over 10 minutes in the making is `failed`. */
export const BRAND_VOICE_DEADLINE_SECONDS = 600;
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

const isFinal = (row: BrandVoiceRow) => row.status === 'completed' || row.status === 'failed';

/** Marks the voice failed and refunds its charge, unless it is gone (deleted, already refunded) or final. */
export async function failBrandVoice(services: Services, id: string, reason: string): Promise<void> {
  await services.db.transaction(async (tx) => {
    const row = await lockBrandVoice(tx, id);
    if (!row || isFinal(row)) return;
    const now = services.clock.now();
    if (row.chargeLedgerId) await refundCredits(tx, { chargeLedgerId: row.chargeLedgerId, description: `Refund: brand voice ${id} failed`, now });
    await updateBrandVoiceRow(tx, { ...row, status: 'failed', error: clip(reason, 1000), creditsCharged: 0, updatedAt: now });
  });
}

/** Applies `change` to the voice while it is still being learned; false when it was deleted or finished meanwhile. */
async function whileLearning(services: Services, id: string, change: (row: BrandVoiceRow) => BrandVoiceRow): Promise<boolean> {
  return services.db.transaction(async (tx) => {
    const row = await lockBrandVoice(tx, id);
    if (!row || isFinal(row)) return false;
    await updateBrandVoiceRow(tx, { ...change(row), updatedAt: services.clock.now() });
    return true;
  });
}

const outcomeOf = (read: SourceText): BrandVoiceSourceOutcome =>
  read.ok ? { status: 'read', characters: read.text.length, error: null } : { status: 'failed', characters: null, error: clip(read.error, 500) };

async function learn(services: Services, id: string, signal: AbortSignal): Promise<void> {
  const [row] = await services.db.transaction(async (tx) => [await lockBrandVoice(tx, id)]);
  if (!row || isFinal(row)) return;
  const overdue = () => services.clock.now().getTime() - row.createdAt.getTime() > BRAND_VOICE_DEADLINE_SECONDS * 1000;
  if (overdue()) return failBrandVoice(services, id, `The voice was not learned within ${BRAND_VOICE_DEADLINE_SECONDS / 60} minutes.`);
  if (!(await whileLearning(services, id, (current) => ({ ...current, status: 'generating' })))) return;

  const stored = row.sources.documents.length
    ? await services.db
        .select({ id: files.id, storageKey: files.storageKey, type: files.type })
        .from(files)
        .where(
          inArray(
            files.id,
            row.sources.documents.map((d) => d.id),
          ),
        )
    : [];
  const [urlTexts, documentTexts] = await Promise.all([
    Promise.all(row.sources.urls.map((source) => readUrlSource(source.url, services.fetcher, signal))),
    Promise.all(
      row.sources.documents.map((document) => {
        const file = stored.find((f) => f.id === document.id);
        return file
          ? readDocumentSource(file, services.storage, MAX_DOCUMENT_BYTES)
          : Promise.resolve<SourceText>({ ok: false, error: 'The file was deleted.' });
      }),
    ),
  ]);
  const sources: BrandVoiceSources = {
    urls: row.sources.urls.map((source, index) => {
      const read = urlTexts[index]!;
      // A URL given without a name takes the page's title (DECISIONS.md; the host name until then).
      const named = read.ok && read.title && source.name === new URL(source.url).hostname ? clip(read.title, 200) : source.name;
      return { ...source, name: named, outcome: outcomeOf(read) };
    }),
    documents: row.sources.documents.map((document, index) => ({ ...document, outcome: outcomeOf(documentTexts[index]!) })),
  };
  if (!(await whileLearning(services, id, (current) => ({ ...current, sources })))) return;

  const texts: BrandVoiceSourceText[] = [
    ...sources.urls.flatMap((source, index) => {
      const read = urlTexts[index]!;
      return read.ok ? [{ name: source.name, text: read.text }] : [];
    }),
    ...sources.documents.flatMap((document, index) => {
      const read = documentTexts[index]!;
      return read.ok ? [{ name: document.name, text: read.text }] : [];
    }),
  ];
  if (texts.length === 0) {
    const reasons = [...sources.urls.map((s) => `${s.url}: ${s.outcome.error}`), ...sources.documents.map((d) => `${d.name}: ${d.outcome.error}`)];
    return failBrandVoice(services, id, `None of the sources could be read. ${reasons.join(' ')}`);
  }

  // biome-ignore lint/suspicious/noImplicitAnyLet: typed by the assignment in the try below.
  let learned;
  try {
    learned = (await services.engine.run(brandVoice, { label: row.label, usage_context: row.usageContext, sources: texts }, { signal })).output;
  } catch (error) {
    if (overdue() || signal.aborted) return failBrandVoice(services, id, `The voice was not learned within ${BRAND_VOICE_DEADLINE_SECONDS / 60} minutes.`);
    return failBrandVoice(services, id, `The model could not derive the voice: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (overdue()) return failBrandVoice(services, id, `The voice was not learned within ${BRAND_VOICE_DEADLINE_SECONDS / 60} minutes.`);
  await whileLearning(services, id, (current) => ({
    ...current,
    status: 'completed',
    error: null,
    voiceSummary: clip(learned.voice_summary, 2000),
    tone: learned.tone,
    writingStyle: learned.writing_style,
    vocabulary: learned.vocabulary,
    examplePhrases: learned.example_phrases.slice(0, 20),
  }));
}

export const brandVoiceJobs = (services: Services): JobDefinition<{ id: string }>[] => [
  {
    kind: LEARN_BRAND_VOICE,
    run: ({ id }, { signal }) => learn(services, id, signal),
    // The 10-minute rule: pg-boss abandons a run past it (its signal aborts the fetches and the model call).
    deadlineSeconds: BRAND_VOICE_DEADLINE_SECONDS,
    // A run lost with its process (a crash) is retried within seconds (the queue's heartbeat); learn()
    // itself fails the voice once the 10-minute rule is past, so a retry never outlives it.
    retryLimit: 2,
    retryDelaySeconds: 2,
    onFailure: ({ id }, error) => failBrandVoice(services, id, `The voice could not be learned: ${error instanceof Error ? error.message : 'the job failed'}.`),
  },
];
