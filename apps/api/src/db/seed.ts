import { basePersonas, generationApps as generationAppCatalog } from '@persona-api/engine';
import { and, eq, notInArray } from 'drizzle-orm';
import type { Database } from './client.js';
import { generationApps, personas, tiers } from './schema/index.js';
import { fromExcluded } from './sql.js';
import { seedBuiltInSchemas } from '../resources/meeting-schemas/repository.js';

const GB = 1e9;

/** Subscription tiers: rate limits from the product specification; allowances are this service's plans. */
export const TIER_CATALOG = [
  { id: 'starter', name: 'Starter', requestsPerMinute: 60, includedCredits: 5_000, storageBytesIncluded: 5 * GB, transcriptionMinutesIncluded: 120 },
  { id: 'basic', name: 'Basic', requestsPerMinute: 120, includedCredits: 20_000, storageBytesIncluded: 20 * GB, transcriptionMinutesIncluded: 600 },
  {
    id: 'professional',
    name: 'Professional',
    requestsPerMinute: 240,
    includedCredits: 50_000,
    storageBytesIncluded: 50 * GB,
    transcriptionMinutesIncluded: 1_200,
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    requestsPerMinute: 600,
    includedCredits: 250_000,
    storageBytesIncluded: 500 * GB,
    transcriptionMinutesIncluded: 6_000,
  },
] as const;

export type TierId = (typeof TIER_CATALOG)[number]['id'];
export const TIER_IDS = TIER_CATALOG.map((tier) => tier.id) as readonly TierId[];

/**
 * Catalogs every instance needs, written idempotently on every start so a changed catalog reaches
 * existing databases. Later packages (models, base personas, generation apps…) add theirs here.
 */
export async function seedCatalogs(db: Database): Promise<void> {
  await db
    .insert(tiers)
    .values([...TIER_CATALOG])
    .onConflictDoUpdate({
      target: tiers.id,
      set: fromExcluded(tiers, ['name', 'requestsPerMinute', 'includedCredits', 'storageBytesIncluded', 'transcriptionMinutesIncluded']),
    });
  await seedBasePersonas(db);
  await seedGenerationApps(db);
  await seedBuiltInSchemas(db);
}

/**
 * The engine's curated base personas, as rows of the persona table so lists page through base and
 * custom personas together. Their system prompts stay in the engine's catalog; personas dropped from
 * the catalog are removed.
 */
async function seedBasePersonas(db: Database): Promise<void> {
  const rows = basePersonas.map((persona) => ({
    id: persona.id,
    isCustom: false,
    accountId: null,
    workspaceId: null,
    createdByUserId: null,
    name: persona.name,
    category: persona.category,
    description: persona.description,
    type: persona.type ?? null,
    pipelineType: persona.pipeline_type,
    details: persona.details,
    aiGenerated: null,
    creditsCharged: 0,
    createdAt: new Date(persona.created_at * 1000),
    updatedAt: new Date(persona.created_at * 1000),
  }));
  await db.transaction(async (tx) => {
    await tx
      .insert(personas)
      .values(rows)
      .onConflictDoUpdate({
        target: personas.id,
        set: fromExcluded(personas, ['name', 'category', 'description', 'type', 'pipelineType', 'details', 'createdAt', 'updatedAt']),
        // Never turn a custom persona into a base one (ids have different prefixes; this is a guard).
        setWhere: eq(personas.isCustom, false),
      });
    const ids = rows.map((row) => row.id);
    await tx.delete(personas).where(and(eq(personas.isCustom, false), notInArray(personas.id, ids)));
  });
}

/** The engine's generation-app catalog (its public fields; templates stay in the engine); dropped apps are removed. */
async function seedGenerationApps(db: Database): Promise<void> {
  const rows = generationAppCatalog.map((app) => ({
    id: app.id,
    name: app.name,
    category: app.category,
    description: app.description,
    inputFields: app.input_fields,
    outputContentType: app.output_content_type,
    estimatedCredits: app.estimated_credits,
    maxOutputTokens: app.max_output_tokens,
    createdAt: new Date(app.created_at),
    updatedAt: new Date(app.updated_at),
  }));
  await db.transaction(async (tx) => {
    await tx
      .insert(generationApps)
      .values(rows)
      .onConflictDoUpdate({
        target: generationApps.id,
        set: fromExcluded(generationApps, [
          'name',
          'category',
          'description',
          'inputFields',
          'outputContentType',
          'estimatedCredits',
          'maxOutputTokens',
          'createdAt',
          'updatedAt',
        ]),
      });
    await tx.delete(generationApps).where(
      notInArray(
        generationApps.id,
        rows.map((row) => row.id),
      ),
    );
  });
}
