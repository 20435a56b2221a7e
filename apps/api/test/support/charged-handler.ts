import type { components } from '@persona-api/types';
import { eq } from 'drizzle-orm';
import { budgetAlertHeader, chargeCredits } from '../../src/billing/credits.js';
import type { Handler } from '../../src/contract/handler-types.js';
import { agentThreads, projects } from '../../src/db/schema/index.js';
import { errors } from '../../src/http/errors.js';
import { newId } from '../../src/lib/ids.js';
import { requireMembership } from '../../src/workspaces/access.js';

export const PRICE = 300;

/** Hooks a test can set to hold a charged call open or make it fail after charging. */
export const chargedCallControl: { gate?: Promise<void>; failAfterCharge?: boolean } = {};

/**
 * A stand-in for the paid operations of later issues, on a real contract operation: it charges a
 * fixed 300 credits and stores its effect (an agent thread) in one transaction, the way they must.
 */
export const chargedCreateAgentThread: Handler<'createAgentThread'> = async ({ body }, ctx) => {
  const workspaceId = body.workspace_id;
  if (!workspaceId) throw errors.invalidParameter('workspace_id', 'workspace_id is required by this test handler');
  await requireMembership(ctx.db, workspaceId, ctx.auth.userId, 'workspace_id');
  if (body.project_id) {
    const [project] = await ctx.db.select().from(projects).where(eq(projects.id, body.project_id));
    if (!project || project.workspaceId !== workspaceId) throw errors.notFound('project', body.project_id, 'project_id');
  }
  if (chargedCallControl.gate) await chargedCallControl.gate;
  const now = ctx.now();
  const thread: components['schemas']['AgentThread'] = {
    id: newId('thr'),
    object: 'agent_thread',
    title: body.title ?? 'New thread',
    workspace_id: workspaceId,
    project_id: body.project_id ?? null,
    persona_id: null,
    credits_used: PRICE,
    message_count: 0,
    last_message_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  const charge = await ctx.db.transaction(async (tx) => {
    await tx.insert(agentThreads).values({
      id: thread.id,
      workspaceId,
      projectId: thread.project_id,
      title: thread.title,
      createdAt: now,
      updatedAt: now,
    });
    const result = await chargeCredits(tx, {
      accountId: ctx.auth.accountId,
      workspaceId,
      projectId: thread.project_id,
      apiKeyId: ctx.auth.apiKeyId,
      amount: PRICE,
      description: 'Test charge',
      operationId: ctx.operationId,
      requestId: ctx.requestId,
      now,
    });
    if (chargedCallControl.failAfterCharge) throw new Error('the effect failed after the charge was written');
    return result;
  });
  const alert = budgetAlertHeader(charge);
  if (alert) ctx.reply.header('budget-alert', alert);
  ctx.meter.promptTokens += 120;
  ctx.meter.completionTokens += 80;
  return thread;
};
