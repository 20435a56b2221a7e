import type { AgentThread } from '@persona-api/types';
import { eq } from 'drizzle-orm';
import { chargedCreate } from '../../src/billing/charged-create.js';
import type { Handler } from '../../src/contract/handler-types.js';
import { projects } from '../../src/db/schema/index.js';
import { insertThread } from '../../src/resources/agent/repository.js';
import { errors } from '../../src/http/errors.js';
import { newId } from '../../src/lib/ids.js';
import { iso } from '../../src/lib/wire.js';
import { requireMembership } from '../../src/workspaces/access.js';

export const PRICE = 300;

/** Hooks a test can set to hold a charged call open or make it fail after charging. */
export const chargedCallControl: { gate?: Promise<void>; failAfterCharge?: boolean } = {};

/**
 * A stand-in for the paid operations of later issues, on a real contract operation: it charges a
 * fixed 300 credits and stores its effect (an agent thread) in one transaction through the same
 * `chargedCreate` the real flat-priced creates use.
 */
export const chargedCreateAgentThread: Handler<'createAgentThread'> = async ({ body }, ctx) => {
  const workspaceId = body.workspace_id;
  if (!workspaceId) throw errors.invalidParameter('workspace_id', 'workspace_id is required by this test handler');
  await requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  if (body.project_id) {
    const [project] = await ctx.db.select().from(projects).where(eq(projects.id, body.project_id));
    if (!project || project.workspaceId !== workspaceId) throw errors.notFound('project', body.project_id, 'project_id');
  }
  const { row: thread } = await chargedCreate(ctx, {
    workspaceId,
    projectId: body.project_id ?? null,
    price: PRICE,
    description: () => 'Test charge',
    produce: async (): Promise<AgentThread> => {
      if (chargedCallControl.gate) await chargedCallControl.gate;
      const now = ctx.now();
      return {
        id: newId('thr'),
        object: 'agent_thread',
        title: body.title ?? 'New thread',
        workspace_id: workspaceId,
        project_id: body.project_id ?? null,
        persona_id: null,
        credits_used: PRICE,
        message_count: 0,
        last_message_at: null,
        created_at: iso(now),
        updated_at: iso(now),
      };
    },
    // Runs after the charge is written, in its transaction.
    store: async (tx, created) => {
      const at = new Date(created.created_at);
      await insertThread(tx, {
        id: created.id,
        workspaceId,
        projectId: created.project_id,
        createdByUserId: null,
        personaId: null,
        title: created.title,
        titlePending: false,
        messageCount: 0,
        creditsUsed: 0,
        lastMessageAt: null,
        createdAt: at,
        updatedAt: at,
      });
      if (chargedCallControl.failAfterCharge) throw new Error('the effect failed after the charge was written');
    },
  });
  ctx.meter.promptTokens += 120;
  ctx.meter.completionTokens += 80;
  return thread;
};
