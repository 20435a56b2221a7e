import { and, eq, gte, lt, notInArray, sql, type SQL } from 'drizzle-orm';
import { usageDayOf } from '../../billing/credits.js';
import type { Executor } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { transcriptionUsageDaily } from '../../db/schema/billing.js';
import { memberOf, memberRowsList } from '../../db/scoped.js';
import { errors } from '../../http/errors.js';
import { listPage, type ListQuery } from '../../lib/pagination.js';
import type { WorkspaceRole } from '../../workspaces/roles.js';
import { workspaceMembers, workspaces } from '../workspaces/table.js';
import { INACTIVE } from './lifecycle.js';
import type { LinkContext } from '../files/mappers.js';
import { toMeeting, type MeetingRow, type TranscriptRow } from './mapper.js';
import { meetingTranscripts, meetings, type StoredSchemaRun } from './table.js';

/** The meeting with the caller's role in its workspace; another tenant's meeting is a 404. */
export async function findMeeting(db: Executor, userId: string, id: string): Promise<{ row: MeetingRow; role: WorkspaceRole }> {
  const [found] = await db
    .select({ row: meetings, role: workspaceMembers.role })
    .from(meetings)
    .innerJoin(workspaceMembers, memberOf(meetings.workspaceId, userId))
    .where(eq(meetings.id, id))
    .limit(1);
  if (!found) throw errors.notFound('meeting', id);
  return { row: found.row, role: found.role as WorkspaceRole };
}

export function listMeetingsOf(
  db: Executor,
  userId: string,
  query: ListQuery & { workspace_id?: string | undefined; status?: string | undefined },
  linksOf: (row: MeetingRow) => LinkContext | null = () => null,
) {
  return listPage(query, {
    list: `meetings:${query.workspace_id ?? '*'}:${query.status ?? '*'}`,
    ...memberRowsList(db, meetings, Boolean(query.workspace_id)),
    prepared: { db, name: 'meetings', values: { user_id: userId, workspace_id: query.workspace_id, status: query.status } },
    filters: [
      query.workspace_id ? eq(meetings.workspaceId, sql.placeholder('workspace_id')) : undefined,
      query.status ? eq(meetings.status, sql.placeholder('status')) : undefined,
    ],
    toItem: ({ row }) => toMeeting(row, linksOf(row)),
  });
}

/** A meeting of the workspace whose bot is still on its way to, or in, the same call. */
export async function activeMeetingFor(db: Executor, workspaceId: string, meetingKey: string): Promise<string | null> {
  const [row] = await db
    .select({ id: meetings.id })
    .from(meetings)
    .where(and(eq(meetings.workspaceId, workspaceId), eq(meetings.meetingKey, meetingKey), notInArray(meetings.status, [...INACTIVE])))
    .limit(1);
  return row?.id ?? null;
}

export async function loadMeeting(db: Executor, id: string): Promise<MeetingRow | null> {
  const [row] = await db.select().from(meetings).where(eq(meetings.id, id)).limit(1);
  return row ?? null;
}

/** Locks the row for a status change (jobs and cancel race for it). */
export async function lockMeeting(tx: Executor, id: string): Promise<MeetingRow | null> {
  const [row] = await tx.select().from(meetings).where(eq(meetings.id, id)).for('update').limit(1);
  return row ?? null;
}

export async function insertMeeting(db: Executor, row: MeetingRow): Promise<void> {
  await db.insert(meetings).values(row);
}

export async function updateMeeting(db: Executor, id: string, changes: Partial<MeetingRow>): Promise<void> {
  await db.update(meetings).set(changes).where(eq(meetings.id, id));
}

/**
 * The transcription minutes of meetings as `(account_id, day, minutes)` rows, one per account and UTC
 * day, from `source` (a table or a CTE with the meetings' columns): ceil(recorded seconds / 60) of each
 * meeting that was transcribed and completed, on the day it completed (DECISIONS.md, Meetings). The one
 * definition of the counter, for its writes and its recount. `sign` -1 takes them back.
 */
export const transcriptionMinutesOf = (source: SQL, sign: 1 | -1 = 1): SQL =>
  sql`select w.account_id, (m.completed_at at time zone 'UTC')::date as day, ${sql.raw(sign === 1 ? '' : '-')}sum(ceil(m.recorded_seconds / 60.0))::bigint as minutes
    from ${source} m join ${workspaces} w on w.id = m.workspace_id
    where m.transcribed = 1 and m.completed_at is not null and m.recorded_seconds is not null
    group by 1, 2`;

/** Adds minutes to the account's day counters (relative, in the transaction that changed the meetings). */
const addTranscriptionMinutes = (rows: SQL): SQL =>
  sql`insert into ${transcriptionUsageDaily} (account_id, day, minutes) ${rows}
    on conflict (account_id, day) do update set minutes = ${transcriptionUsageDaily}.minutes + excluded.minutes`;

/** Counts the minutes of a meeting that has just reached `done` (its row locked by the move). */
export async function countTranscriptionMinutes(tx: Executor, meetingId: string): Promise<void> {
  await tx.execute(addTranscriptionMinutes(transcriptionMinutesOf(sql`(select * from ${meetings} where ${meetings.id} = ${meetingId})`)));
}

/**
 * Deletes the meeting and gives its transcription minutes back, in one statement: the minutes are those of
 * the row the delete really removed (its latest version), so a meeting finishing meanwhile is exact too.
 */
export async function deleteMeetingRow(tx: Executor, id: string): Promise<void> {
  await tx.execute(sql`with gone as (delete from ${meetings} where ${meetings.id} = ${id} returning *)
    ${addTranscriptionMinutes(transcriptionMinutesOf(sql`gone`, -1))}`);
}

/** Deletes every meeting of a workspace that is being deleted, giving their minutes back as deleteMeetingRow does. */
export async function deleteMeetingsOf(tx: Executor, workspaceId: string): Promise<void> {
  await tx.execute(sql`with gone as (delete from ${meetings} where ${meetings.workspaceId} = ${workspaceId} returning *)
    ${addTranscriptionMinutes(transcriptionMinutesOf(sql`gone`, -1))}`);
}

export async function findTranscript(db: Executor, meetingId: string): Promise<TranscriptRow | null> {
  const [row] = await db.select().from(meetingTranscripts).where(eq(meetingTranscripts.meetingId, meetingId)).limit(1);
  return row ?? null;
}

export async function upsertTranscript(db: Executor, row: TranscriptRow): Promise<void> {
  const { meetingId, ...rest } = row;
  await db.insert(meetingTranscripts).values(row).onConflictDoUpdate({ target: meetingTranscripts.meetingId, set: rest });
}

/**
 * Transcription minutes the account used in [start, end) (whole UTC days): ceil(recorded seconds / 60) of
 * each meeting that reached `done` in the period with a transcript made by speech-to-text (a bot's
 * recording or an imported recording; a transcript file uses none). DECISIONS.md, Meetings. Read from the
 * day counters: at most 31 rows whatever the history.
 */
export async function transcriptionMinutesUsed(db: Executor, accountId: string, start: Date, end: Date): Promise<number> {
  const [row] = rowsOf<{ minutes: string }>(await db.execute(sql`select ${transcriptionMinutesUsedSql(accountId, start, end)} as minutes`));
  return Number(row?.minutes ?? 0);
}

/** transcriptionMinutesUsed as a scalar subquery (text), for a statement that reads it beside other figures (GET /usage). */
export const transcriptionMinutesUsedSql = (accountId: SQL | string, start: Date, end: Date): SQL<string> =>
  sql<string>`(select coalesce(sum(${transcriptionUsageDaily.minutes}), 0) from ${transcriptionUsageDaily} where ${and(
    eq(transcriptionUsageDaily.accountId, accountId),
    gte(transcriptionUsageDaily.day, usageDayOf(start)),
    lt(transcriptionUsageDaily.day, usageDayOf(end)),
  )})::text`;

/**
 * Records one schema's extraction state on its meeting (Meeting.schema_runs), merged into the others in one
 * statement so concurrent updates of different schemas do not overwrite each other.
 */
export async function setSchemaRun(db: Executor, meetingId: string, schemaId: string, run: StoredSchemaRun): Promise<void> {
  await db
    .update(meetings)
    .set({ schemaRuns: sql`${meetings.schemaRuns} || jsonb_build_object(${schemaId}::text, ${JSON.stringify(run)}::jsonb)` })
    .where(eq(meetings.id, meetingId));
}
