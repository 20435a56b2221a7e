import type { MeetingStatus, MeetingStatusChange } from '@persona-api/types';

/** DECISIONS.md, Meetings: the state machine (imports go pending → recording_done → done | fatal). */
const NEXT: Record<MeetingStatus, readonly MeetingStatus[]> = {
  pending: ['joining_call', 'recording_done', 'fatal', 'cancelled'],
  joining_call: ['in_waiting_room', 'in_call_not_recording', 'fatal', 'cancelled'],
  in_waiting_room: ['in_call_not_recording', 'call_ended', 'fatal', 'cancelled'],
  in_call_not_recording: ['in_call_recording', 'recording_permission_denied', 'call_ended', 'cancelled'],
  in_call_recording: ['in_call_not_recording', 'call_ended', 'cancelled'],
  call_ended: ['recording_done', 'done'],
  recording_done: ['done', 'fatal'],
  done: ['media_expired'],
  fatal: [],
  recording_permission_denied: [],
  media_expired: [],
  cancelled: [],
};

export const CANCELLABLE: readonly MeetingStatus[] = ['pending', 'joining_call', 'in_waiting_room', 'in_call_not_recording', 'in_call_recording'];
/** Statuses after which no bot is in (or on its way to) the call: a new meeting may use the link. */
export const INACTIVE: readonly MeetingStatus[] = ['done', 'fatal', 'recording_permission_denied', 'media_expired', 'cancelled'];
export const MAX_STATUS_CHANGES = 100;

export const canMove = (from: MeetingStatus, to: MeetingStatus) => NEXT[from].includes(to);

/** A change to record; `message` and `sub_code` say why (the cause users ask for). */
export interface StatusMove {
  code: MeetingStatus;
  sub_code?: string | null;
  message?: string | null;
}

/** The history with `move` appended (bounded: the first change and the latest ones are kept). */
export function withChange(history: readonly MeetingStatusChange[], move: StatusMove, at: Date): MeetingStatusChange[] {
  const change: MeetingStatusChange = {
    code: move.code,
    sub_code: move.sub_code ?? null,
    message: move.message?.slice(0, 500) ?? null,
    created_at: at.toISOString(),
  };
  const next = [...history, change];
  return next.length > MAX_STATUS_CHANGES ? [next[0]!, ...next.slice(next.length - MAX_STATUS_CHANGES + 1)] : next;
}
