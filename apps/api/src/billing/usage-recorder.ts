import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.js';
import { apiUsageDaily } from '../db/schema/index.js';
import { COMMIT_WITHOUT_FLUSH, qualified } from '../db/sql.js';

interface Counters {
  apiKeyId: string;
  accountId: string;
  day: string;
  requests: number;
  errors: number;
  latencyMsTotal: number;
  promptTokens: number;
  completionTokens: number;
  lastRequestAt: Date;
}

export interface RequestRecord {
  apiKeyId: string;
  /** The key's account (a key never changes account). */
  accountId: string;
  at: Date;
  status: number;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * `at` as a value whose statement commits without waiting for its WAL flush (COMMIT_WITHOUT_FLUSH; an upsert's
 * VALUES is where it can go): the counts were already held in memory for up to a second, so a database crash
 * losing the last ones weakens nothing, and GET /usage, which writes this process's counts before it reads,
 * waits for no disk flush (DECISIONS.md, Usage).
 */
const committedWithoutFlush = (at: Date) => sql<Date>`(select ${at.toISOString()}::timestamptz from (select ${COMMIT_WITHOUT_FLUSH}) as async_commit)`;

/**
 * Counts API requests per key and UTC day. Adds up in memory and writes one upsert per key and day
 * each second (and on flush/close), so metering costs no database write per request.
 */
export class UsageRecorder {
  private pending = new Map<string, Counters>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly log: FastifyBaseLogger,
    intervalMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(entry: RequestRecord): void {
    const day = entry.at.toISOString().slice(0, 10);
    const id = `${entry.apiKeyId}|${day}`;
    let counters = this.pending.get(id);
    if (!counters) {
      counters = {
        apiKeyId: entry.apiKeyId,
        accountId: entry.accountId,
        day,
        requests: 0,
        errors: 0,
        latencyMsTotal: 0,
        promptTokens: 0,
        completionTokens: 0,
        lastRequestAt: entry.at,
      };
      this.pending.set(id, counters);
    }
    counters.requests += 1;
    if (entry.status >= 400) counters.errors += 1;
    counters.latencyMsTotal += Math.round(entry.latencyMs);
    counters.promptTokens += entry.promptTokens;
    counters.completionTokens += entry.completionTokens;
    if (entry.at > counters.lastRequestAt) counters.lastRequestAt = entry.at;
  }

  /** Writes what has been counted so far; GET /usage calls it so its figures include every request. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.db
        .insert(apiUsageDaily)
        .values(batch.map((counters) => ({ ...counters, lastRequestAt: committedWithoutFlush(counters.lastRequestAt) })))
        .onConflictDoUpdate({
          target: [apiUsageDaily.apiKeyId, apiUsageDaily.day],
          set: {
            requests: sql`${qualified(apiUsageDaily.requests)} + excluded.requests`,
            errors: sql`${qualified(apiUsageDaily.errors)} + excluded.errors`,
            latencyMsTotal: sql`${qualified(apiUsageDaily.latencyMsTotal)} + excluded.latency_ms_total`,
            promptTokens: sql`${qualified(apiUsageDaily.promptTokens)} + excluded.prompt_tokens`,
            completionTokens: sql`${qualified(apiUsageDaily.completionTokens)} + excluded.completion_tokens`,
            lastRequestAt: sql`greatest(${qualified(apiUsageDaily.lastRequestAt)}, excluded.last_request_at)`,
          },
        });
    } catch (err) {
      // Metering must never fail a request; the batch is lost and the failure logged.
      this.log.error({ err }, 'could not write API usage counters');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
