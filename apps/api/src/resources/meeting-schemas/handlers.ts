import { eq } from 'drizzle-orm';
import type { HandlerMap } from '../../contract/handler-types.js';
import type { RequestContext } from '../../http/context.js';
import { errors } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { deleteInTransaction } from '../../lib/patch.js';
import { requireMembership, requireRole, roleLabel } from '../../workspaces/access.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { findMeeting, findTranscript, setSchemaRun } from '../meetings/repository.js';
import { meetings } from '../meetings/table.js';
import { isMarketplace, toMeetingSchema, toSchemaResult, type SchemaRow, type SchemaView } from './mapper.js';
import { deleteSchemaRow, findSchema, insertSchema, listSchemasOf, resultsOf, updateSchema, upsertResult } from './repository.js';
import { buildFields } from './rules.js';
import { extractResult } from './run.js';

/** Publishing speaks for the whole workspace (DECISIONS.md, Workspace roles). */
const PUBLISHERS: readonly WorkspaceRole[] = ['owner', 'department_admin', 'manager'];
const MAX_SCHEMAS_PER_MEETING = 10;

function requirePublisher(role: WorkspaceRole): void {
  if (!PUBLISHERS.includes(role)) {
    throw errors.permissionDenied(
      `Your role (${roleLabel(role)}) cannot publish schemas to the marketplace; ask a workspace owner or manager.`,
      'is_published',
    );
  }
}

/**
 * The caller may change (or delete) this schema: a custom schema of their workspace, theirs or, for
 * owners and managers, a colleague's. Built-in and marketplace schemas are visible, so 403, not 404.
 */
function requireEditable(view: SchemaView, action: 'content.update' | 'content.delete', doing: string): WorkspaceRole {
  if (view.row.isBuiltIn === 1) throw errors.permissionDenied(`${view.row.name} is a built-in schema and cannot be ${doing}; create a custom schema instead.`);
  if (isMarketplace(view) || !view.role) throw errors.permissionDenied(`${view.row.name} is a marketplace schema of another workspace and cannot be ${doing}.`);
  requireRole(view.role, action, `${doing === 'changed' ? 'change' : 'delete'} meeting schemas in this workspace`);
  return view.role;
}

function requireOwnOrManaged(view: SchemaView, role: WorkspaceRole, userId: string, doing: string): void {
  if (view.row.userId !== userId && !PUBLISHERS.includes(role)) {
    throw errors.permissionDenied(`Only its creator or a workspace owner or manager can ${doing} this schema.`);
  }
}

type RunBody = Parameters<HandlerMap['runMeetingSchema']>[0]['body'];

/** Runs a schema on a meeting that is done (retro-scoring): replaces its result, appends it to schema_ids. */
async function runOnMeeting(meetingId: string, body: RunBody, ctx: RequestContext) {
  const { row: meeting, role } = await findMeeting(ctx.db, ctx.auth.userId, meetingId);
  requireRole(role, 'content.update', 'run schemas on meetings in this workspace');
  const schema = (await findSchema(ctx.db, ctx.auth.userId, body.schema_id, 'schema_id')).row;
  const transcript = ['done', 'media_expired'].includes(meeting.status) ? await findTranscript(ctx.db, meeting.id) : null;
  if (!transcript) {
    throw errors.conflict('invalid_state', `The meeting is ${meeting.status} and has no transcript to run a schema on; schemas run on meetings that are done.`);
  }
  const adding = !meeting.schemaIds.includes(schema.id);
  if (adding && meeting.schemaIds.length >= MAX_SCHEMAS_PER_MEETING) {
    throw errors.conflict(
      'invalid_state',
      `The meeting already runs ${MAX_SCHEMAS_PER_MEETING} schemas, the most it can; run one of them again instead.`,
      'schema_id',
    );
  }
  const now = ctx.now();
  const result = await extractResult(ctx.services.engine, schema, meeting, transcript, now);
  const stored = await ctx.db.transaction(async (tx) => {
    // Locked so two runs adding schemas at once cannot pass 10 together.
    const [current] = await tx.select({ schemaIds: meetings.schemaIds }).from(meetings).where(eq(meetings.id, meeting.id)).for('update');
    if (!current) throw errors.notFound('meeting', meeting.id);
    if (!current.schemaIds.includes(schema.id)) {
      if (current.schemaIds.length >= MAX_SCHEMAS_PER_MEETING)
        throw errors.conflict('invalid_state', `The meeting already runs ${MAX_SCHEMAS_PER_MEETING} schemas.`, 'schema_id');
      await tx
        .update(meetings)
        .set({ schemaIds: [...current.schemaIds, schema.id], updatedAt: now })
        .where(eq(meetings.id, meeting.id));
    }
    const upserted = await upsertResult(tx, result);
    await setSchemaRun(tx, meeting.id, schema.id, { status: 'completed', error: null, updatedAt: now.getTime() });
    return upserted;
  });
  return toSchemaResult(stored);
}

export const meetingSchemaHandlers = {
  listMeetingSchemas: async ({ query }, ctx) => {
    if (query.workspace_id) await requireMembership(ctx.db, query.workspace_id, ctx.auth.userId, 'workspace_id');
    return listSchemasOf(ctx.db, ctx.auth.userId, query);
  },

  createMeetingSchema: async ({ body }, ctx) => {
    const membership = await requireMembership(ctx.db, body.workspace_id, ctx.auth.userId, 'workspace_id');
    requireRole(membership.role, 'content.create', 'create meeting schemas in this workspace');
    if (body.is_published) requirePublisher(membership.role);
    const now = ctx.now();
    const row: SchemaRow = {
      id: newId('msch'),
      workspaceId: membership.workspace.id,
      userId: ctx.auth.userId,
      isBuiltIn: 0,
      name: body.name,
      description: body.description ?? null,
      category: body.category ?? 'custom',
      isPublished: body.is_published ? 1 : 0,
      version: 1,
      tags: body.tags ?? null,
      fields: buildFields(body.fields),
      listAt: now,
      createdAt: now,
      updatedAt: now,
    };
    await insertSchema(ctx.db, row);
    return toMeetingSchema({ row, role: membership.role, workspaceName: membership.workspace.name, downloads: 0, usage: 0 });
  },

  getMeetingSchema: async ({ params }, ctx) => toMeetingSchema(await findSchema(ctx.db, ctx.auth.userId, params.id)),

  updateMeetingSchema: async ({ params, body }, ctx) => {
    const now = ctx.now();
    await ctx.db.transaction(async (tx) => {
      const view = await findSchema(tx, ctx.auth.userId, params.id);
      const role = requireEditable(view, 'content.update', 'changed');
      requireOwnOrManaged(view, role, ctx.auth.userId, 'change');
      if (body.is_published !== undefined && body.is_published !== (view.row.isPublished === 1)) requirePublisher(role);
      const changes: Partial<SchemaRow> = { updatedAt: now };
      if (body.name !== undefined) changes.name = body.name;
      if (body.description !== undefined) changes.description = body.description;
      if (body.category !== undefined) changes.category = body.category;
      if (body.tags !== undefined) changes.tags = body.tags;
      if (body.is_published !== undefined) changes.isPublished = body.is_published ? 1 : 0;
      // Only a change of fields makes a new version (results record the version they used).
      if (body.fields !== undefined) {
        changes.fields = buildFields(body.fields, view.row.fields);
        changes.version = view.row.version + 1;
      }
      await updateSchema(tx, view.row.id, changes);
    });
    return toMeetingSchema(await findSchema(ctx.db, ctx.auth.userId, params.id));
  },

  deleteMeetingSchema: async ({ params }, ctx) =>
    deleteInTransaction(ctx.db, { object: 'meeting.schema', id: params.id }, async (tx) => {
      const view = await findSchema(tx, ctx.auth.userId, params.id);
      const role = requireEditable(view, 'content.delete', 'deleted');
      requireOwnOrManaged(view, role, ctx.auth.userId, 'delete');
      // Results keep schema_id and schema_name; meetings not yet processed skip it.
      await deleteSchemaRow(tx, view.row.id);
    }),

  listMeetingSchemaResults: async ({ params, query }, ctx) => {
    const { row: meeting } = await findMeeting(ctx.db, ctx.auth.userId, params.id);
    const rows = await resultsOf(ctx.db, meeting.id, query.schema_id);
    // In schema_ids order; a result of a schema no longer listed (none today) goes last.
    const position = (schemaId: string) => {
      const at = meeting.schemaIds.indexOf(schemaId);
      return at < 0 ? Number.MAX_SAFE_INTEGER : at;
    };
    const data = rows
      .sort((a, b) => position(a.schemaId) - position(b.schemaId))
      .slice(0, MAX_SCHEMAS_PER_MEETING)
      .map((row) => toSchemaResult(row, query.include_evidence ?? true));
    return { object: 'list' as const, meeting_id: meeting.id, data, total: data.length };
  },

  runMeetingSchema: async ({ params, body }, ctx) => runOnMeeting(params.id, body, ctx),
} satisfies Pick<
  HandlerMap,
  | 'listMeetingSchemas'
  | 'createMeetingSchema'
  | 'getMeetingSchema'
  | 'updateMeetingSchema'
  | 'deleteMeetingSchema'
  | 'listMeetingSchemaResults'
  | 'runMeetingSchema'
>;
