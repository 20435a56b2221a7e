CREATE TABLE "credit_usage_daily" (
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"day" date NOT NULL,
	"credits" bigint NOT NULL,
	CONSTRAINT "credit_usage_daily_scope_scope_id_day_pk" PRIMARY KEY("scope","scope_id","day")
);
--> statement-breakpoint
-- Hand-edited: drizzle-kit also wrote the new list indexes here (meetings_workspace_status_idx,
-- generations_project_page_idx, generations_workspace_app_idx, agent_threads_project_page_idx, and the
-- drops of generations_project_idx and agent_threads_project_idx). drizzle's migrator runs every pending
-- migration in one transaction, where CREATE INDEX CONCURRENTLY is refused, and a plain CREATE INDEX
-- blocks writes to a large table for the whole build: src/db/online-indexes.ts builds them after the
-- migrations, CONCURRENTLY on PostgreSQL.
-- Hand-written: backfill the counters from the ledger (charges net of refunds per scope and UTC day),
-- the same sums `pnpm admin usage reconcile` checks. One scan of the ledger, once.
INSERT INTO "credit_usage_daily" ("scope", "scope_id", "day", "credits")
SELECT s.scope, s.scope_id, s.day, sum(s.credits) FROM (
	SELECT l.day, l.credits, v.scope, v.scope_id
	FROM (
		SELECT "account_id", "workspace_id", "project_id", "api_key_id",
			("created_at" AT TIME ZONE 'UTC')::date AS day, -"amount" AS credits
		FROM "credit_ledger" WHERE "kind" IN ('charge', 'refund')
	) l
	CROSS JOIN LATERAL (VALUES
		('account', l."account_id"),
		('account_keys', CASE WHEN l."api_key_id" IS NOT NULL THEN l."account_id" END),
		('workspace', l."workspace_id"),
		('project', l."project_id"),
		('api_key', l."api_key_id")
	) AS v(scope, scope_id)
	WHERE v.scope_id IS NOT NULL
) s
GROUP BY s.scope, s.scope_id, s.day;
