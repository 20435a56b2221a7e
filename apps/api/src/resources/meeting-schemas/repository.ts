import { and, asc, eq, inArray, notInArray, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { fromExcluded, qualified } from '../../db/sql.js';
import { errors } from '../../http/errors.js';
import { listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import { BUILT_IN_LIST_AT, BUILT_IN_SCHEMAS } from './built-ins.js';
import { toMeetingSchema, type SchemaRow, type SchemaView } from './mapper.js';
import { buildFields } from './rules.js';
import { meetingSchemaResults, meetingSchemas, meetingSchemaUsage } from './table.js';
import { CALLER, pageAcrossWorkspaces, pageSource } from '../../db/scoped.js';

const BUILT_IN_CREATED_AT = new Date('2026-01-05T00:00:00Z');

// The flags as literals in the text: a list statement kept per shape may hold no value but placeholders.
const isBuiltIn = sql`${meetingSchemas.isBuiltIn} = 1`;
const notBuiltIn = sql`${meetingSchemas.isBuiltIn} = 0`;
const isPublished = sql`${meetingSchemas.isPublished} = 1`;

/** Writes the built-in schemas (db/seed.ts, on every start): a changed built-in reaches existing databases. */
export async function seedBuiltInSchemas(db: Database): Promise<void> {
  const rows = BUILT_IN_SCHEMAS.map((schema, index) => ({
    id: schema.id,
    workspaceId: null,
    userId: null,
    isBuiltIn: 1,
    name: schema.name,
    description: schema.description,
    category: schema.category,
    isPublished: 1,
    version: schema.version,
    tags: schema.tags,
    // Field ids of a built-in are fixed too: msf_<schema>_<field>.
    fields: buildFields(schema.fields, [], () => '').map((field) => ({ ...field, id: `msf_${schema.id.slice(5, -7)}_${field.name}` })),
    listAt: BUILT_IN_LIST_AT(index),
    createdAt: BUILT_IN_CREATED_AT,
    updatedAt: BUILT_IN_CREATED_AT,
  }));
  await db.transaction(async (tx) => {
    await tx
      .insert(meetingSchemas)
      .values(rows)
      .onConflictDoUpdate({
        target: meetingSchemas.id,
        set: fromExcluded(meetingSchemas, ['name', 'description', 'category', 'version', 'tags', 'fields', 'listAt']),
        setWhere: isBuiltIn,
      });
    await tx.delete(meetingSchemas).where(
      and(
        isBuiltIn,
        notInArray(
          meetingSchemas.id,
          rows.map((row) => row.id),
        ),
      ),
    );
  });
}

/** Workspaces the user belongs to, as a subquery. */
const memberWorkspaces = (userId: string | Placeholder) =>
  sql`(select ${workspaceMembers.workspaceId} from ${workspaceMembers} where ${workspaceMembers.userId} = ${userId})`;

/** Schemas the user can see: built-ins, published ones, and those of their workspaces. */
const visibleTo = (userId: string | Placeholder): SQL => or(isBuiltIn, isPublished, sql`${meetingSchemas.workspaceId} in ${memberWorkspaces(userId)}`) as SQL;

/** The columns of a schema as the caller sees it: role in its workspace, author, counts. */
const viewColumns = (userId: string | Placeholder) => ({
  row: meetingSchemas,
  role: workspaceMembers.role,
  workspaceName: workspaces.name,
  downloads: meetingSchemas.downloads,
  // The caller's workspaces' counts (meeting_schema_usage, kept by a trigger): one primary-key lookup per
  // workspace of theirs, whatever the history of results.
  usage: sql<number>`(select coalesce(sum(${meetingSchemaUsage.results}), 0)::int from ${workspaceMembers} ${sql.identifier('m')}
    join ${meetingSchemaUsage} on ${meetingSchemaUsage.workspaceId} = ${sql.identifier('m')}.${sql.identifier('workspace_id')}
      and ${meetingSchemaUsage.schemaId} = ${qualified(meetingSchemas.id)}
    where ${sql.identifier('m')}.${sql.identifier('user_id')} = ${userId})`,
});

function selectViews(db: Executor, userId: string | Placeholder, source = meetingSchemas) {
  return db
    .select(viewColumns(userId))
    .from(source)
    .leftJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, meetingSchemas.workspaceId), eq(workspaceMembers.userId, userId)))
    .leftJoin(workspaces, eq(workspaces.id, meetingSchemas.workspaceId));
}

const toView = (found: { row: SchemaRow; role: string | null; workspaceName: string | null; downloads: number; usage: number }): SchemaView => ({
  row: found.row,
  role: (found.role as WorkspaceRole | null) ?? null,
  workspaceName: found.workspaceName,
  downloads: Number(found.downloads),
  usage: Number(found.usage),
});

/** A schema the caller can see (404 otherwise, naming `param`), with their role when it is their workspace's. */
export async function findSchema(db: Executor, userId: string, id: string, param = 'id'): Promise<SchemaView> {
  const [found] = await selectViews(db, userId)
    .where(and(eq(meetingSchemas.id, id), visibleTo(userId)))
    .limit(1);
  if (!found) throw errors.notFound('meeting schema', id, param);
  return toView(found);
}

/** The schemas of `ids` the caller can see, in the order given; the first unknown one is a 404 naming `param.N`. */
export async function requireVisibleSchemas(db: Executor, userId: string, ids: readonly string[], param: string): Promise<SchemaRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(meetingSchemas)
    .where(and(inArray(meetingSchemas.id, [...ids]), visibleTo(userId)));
  return ids.map((id, index) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) throw errors.notFound('meeting schema', id, `${param}.${index}`);
    return row;
  });
}

export function listSchemasOf(
  db: Executor,
  userId: string,
  query: ListQuery & { category?: string | undefined; include_built_in?: boolean | undefined; workspace_id?: string | undefined },
) {
  const includeBuiltIn = query.include_built_in ?? true;
  const user = CALLER;
  // A page of each of the caller's workspaces' schemas (workspace_id narrows these only) beside a page of
  // those every caller sees, built-in or published, from another workspace or none (their own partial
  // index): never a walk past other tenants' unpublished schemas.
  const shared = sql`(${isBuiltIn} or ${isPublished}) and (${meetingSchemas.workspaceId} is null or ${meetingSchemas.workspaceId} not in ${memberWorkspaces(user)})`;
  return listPage(query, {
    list: `meeting_schemas:${query.workspace_id ?? '*'}:${query.category ?? '*'}:${includeBuiltIn}`,
    keyset: { sortKey: meetingSchemas.listAt, id: meetingSchemas.id },
    // Leaving out the built-ins is a condition with no value: a statement name of its own.
    prepared: {
      db,
      name: includeBuiltIn ? 'meeting_schemas' : 'meeting_schemas_custom',
      values: { user_id: userId, workspace_id: query.workspace_id, category: query.category },
    },
    filters: [query.category ? eq(meetingSchemas.category, sql.placeholder('category')) : undefined, includeBuiltIn ? undefined : notBuiltIn],
    acrossWorkspaces: pageAcrossWorkspaces(meetingSchemas, { workspaceId: meetingSchemas.workspaceId }, user, {
      workspaceId: query.workspace_id ? sql.placeholder('workspace_id') : undefined,
      outside: shared,
    }),
    rows: (page) =>
      selectViews(db, user, pageSource(meetingSchemas, page))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.fetch),
    keyOf: ({ row }) => ({ sortKey: row.listAt, id: row.id }),
    toItem: (found) => toMeetingSchema(toView(found)),
  });
}

export async function insertSchema(db: Executor, row: SchemaRow): Promise<void> {
  await db.insert(meetingSchemas).values(row);
}

export async function updateSchema(db: Executor, id: string, changes: Partial<SchemaRow>): Promise<void> {
  await db.update(meetingSchemas).set(changes).where(eq(meetingSchemas.id, id));
}

export async function deleteSchemaRow(db: Executor, id: string): Promise<void> {
  await db.delete(meetingSchemas).where(eq(meetingSchemas.id, id));
}

export type ResultRow = typeof meetingSchemaResults.$inferSelect;

export async function resultsOf(db: Executor, meetingId: string, schemaId?: string): Promise<ResultRow[]> {
  return db
    .select()
    .from(meetingSchemaResults)
    .where(and(eq(meetingSchemaResults.meetingId, meetingId), schemaId ? eq(meetingSchemaResults.schemaId, schemaId) : undefined))
    .orderBy(asc(meetingSchemaResults.createdAt));
}

/** Stores a result; a schema run again on the same meeting replaces its result (same id). */
export async function upsertResult(db: Executor, row: ResultRow): Promise<ResultRow> {
  const { id, meetingId, schemaId, createdAt, ...rest } = row;
  const [stored] = await db
    .insert(meetingSchemaResults)
    .values(row)
    .onConflictDoUpdate({ target: [meetingSchemaResults.meetingId, meetingSchemaResults.schemaId], set: rest })
    .returning();
  return stored!;
}
