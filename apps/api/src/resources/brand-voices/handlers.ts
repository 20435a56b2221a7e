import type { BrandVoiceSourceDocument, BrandVoiceSourceUrl } from '@persona-api/types';
import { and, eq, inArray } from 'drizzle-orm';
import { chargedCreate } from '../../billing/charged-create.js';
import { refundCredits } from '../../billing/credits.js';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { Executor } from '../../db/client.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { applyPatch, deleteInTransaction, patchInTransaction } from '../../lib/patch.js';
import { requireMembership, requireRole } from '../../workspaces/access.js';
import { files } from '../files/table.js';
import { LEARN_BRAND_VOICE } from './job.js';
import { emptyVoice, toBrandVoice, type BrandVoiceRow } from './mapper.js';
import { clip, DOCUMENT_TYPES, LEGACY_WORD } from '../../ai/source-text.js';
import { chargeDescription, deleteBrandVoiceRow, findBrandVoice, insertBrandVoice, listBrandVoicesOf, updateBrandVoiceRow } from './repository.js';

/** DECISIONS.md, Credits: a flat 100, refunded on failure or delete before completion. */
export const BRAND_VOICE_CREDITS = 100;
const MAX_DOCUMENT_SIZE = 10 * 1024 * 1024;

const pendingOutcome = { status: 'pending', characters: null, error: null } as const;

/** Each file id must be a readable document of the voice's workspace (400 `sources.file_ids.N` otherwise). */
async function documentSources(db: Executor, workspaceId: string, fileIds: readonly string[]): Promise<BrandVoiceSourceDocument[]> {
  if (fileIds.length === 0) return [];
  const rows = await db
    .select()
    .from(files)
    .where(and(eq(files.workspaceId, workspaceId), inArray(files.id, [...fileIds])));
  return fileIds.map((id, index) => {
    const param = `sources.file_ids.${index}`;
    const file = rows.find((row) => row.id === id);
    if (!file) throw errors.invalidParameter(param, `${id} is not a file of workspace ${workspaceId}.`);
    const type = file.type.toLowerCase();
    if (type === LEGACY_WORD)
      throw errors.invalidParameter(param, `${file.name} is a legacy Word .doc, which cannot be read; save it as .docx and upload it again.`);
    if (!DOCUMENT_TYPES[type])
      throw errors.invalidParameter(param, `${file.name} is ${file.type}; a voice learns from PDF, Word (.docx), Markdown, HTML or plain-text documents.`);
    if (!file.storageKey || !file.size) throw errors.invalidParameter(param, `${file.name} is a reference to another service, with no stored content to read.`);
    if (file.size > MAX_DOCUMENT_SIZE) throw errors.invalidParameter(param, `${file.name} is larger than 10 MiB.`);
    return { id: file.id, name: clip(file.name, 255), description: null, file_type: clip(file.type, 255), file_size: file.size, outcome: pendingOutcome };
  });
}

export const brandVoiceHandlers = {
  listBrandVoices: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listBrandVoicesOf(ctx.db, ctx.auth.userId, query);
  },

  createBrandVoice: async ({ body }, ctx) => {
    const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
    // Creates content and costs credits: both permissions (DECISIONS.md, Workspace roles ²).
    requireRole(membership.role, 'content.create', 'create brand voices in this workspace');
    requireRole(membership.role, 'ai.call', 'make paid AI calls in this workspace');
    const workspaceId = membership.workspace.id;
    const documents = await documentSources(ctx.db, workspaceId, body.sources.file_ids ?? []);
    const urls: BrandVoiceSourceUrl[] = (body.sources.urls ?? []).map((source) => ({
      id: newId('bvsrc'),
      url: source.url,
      // The page's title replaces the host name once the page is read.
      name: source.name ?? clip(new URL(source.url).hostname || source.url, 200),
      description: source.description ?? null,
      outcome: pendingOutcome,
    }));
    const { row } = await chargedCreate(ctx, {
      workspaceId,
      price: BRAND_VOICE_CREDITS,
      description: (voice) => chargeDescription(voice.id),
      produce: async (): Promise<BrandVoiceRow> => {
        const now = ctx.now();
        return {
          id: newId('bv'),
          workspaceId,
          createdByUserId: ctx.auth.userId,
          label: body.label,
          usageContext: body.usage_context,
          status: 'pending',
          error: null,
          ...emptyVoice(),
          sources: { urls, documents },
          creditsCharged: BRAND_VOICE_CREDITS,
          chargeLedgerId: null,
          createdAt: now,
          updatedAt: now,
        };
      },
      store: async (tx, voice) => {
        await insertBrandVoice(tx, voice);
        await ctx.services.jobs.enqueue(tx, LEARN_BRAND_VOICE, { id: voice.id }, { singletonKey: voice.id });
      },
    });
    return toBrandVoice(row);
  },

  getBrandVoice: async ({ params }, ctx) => toBrandVoice((await findBrandVoice(ctx.db, ctx.auth.userId, params.id)).row),

  updateBrandVoice: async ({ params, body }, ctx) => {
    const { next } = await patchInTransaction(ctx.db, {
      find: (tx) => findBrandVoice(tx, ctx.auth.userId, params.id),
      authorize: ({ row, role }) => {
        requireRole(role, 'content.update', 'update brand voices in this workspace');
        if (row.status === 'pending' || row.status === 'generating') {
          throw errors.conflict('invalid_state', `Brand voice ${row.id} is still ${row.status}; it can be edited once it is completed or failed.`);
        }
      },
      merge: ({ row }): BrandVoiceRow => ({
        ...applyPatch(row, body, {
          label: 'label',
          usage_context: 'usageContext',
          voice_summary: 'voiceSummary',
          tone: 'tone',
          writing_style: 'writingStyle',
          vocabulary: 'vocabulary',
          example_phrases: 'examplePhrases',
        }),
        updatedAt: ctx.now(),
      }),
      save: updateBrandVoiceRow,
    });
    return toBrandVoice(next);
  },

  deleteBrandVoice: async ({ params }, ctx) =>
    deleteInTransaction(ctx.db, { object: 'brand_voice', id: params.id }, async (tx) => {
      const { row, role } = await findBrandVoice(tx, ctx.auth.userId, params.id);
      requireRole(role, 'content.delete', 'delete brand voices in this workspace');
      // Deleted before completing: the customer got nothing, so the charge goes back (the job then finds no row).
      if ((row.status === 'pending' || row.status === 'generating') && row.chargeLedgerId) {
        await refundCredits(tx, { chargeLedgerId: row.chargeLedgerId, description: `Refund: brand voice ${row.id} deleted before completing`, now: ctx.now() });
      }
      await deleteBrandVoiceRow(tx, row.id);
    }),
} satisfies Pick<HandlerMap, 'listBrandVoices' | 'createBrandVoice' | 'getBrandVoice' | 'updateBrandVoice' | 'deleteBrandVoice'>;
