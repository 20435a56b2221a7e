CREATE TABLE "transcription_usage_daily" (
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"minutes" bigint NOT NULL,
	CONSTRAINT "transcription_usage_daily_account_id_day_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "stored_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "member_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "project_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "agent_thread_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "agent_thread_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "generation_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "transcription_usage_daily" ADD CONSTRAINT "transcription_usage_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written from here: fill the counters from the rows they count, each table in one grouped scan
-- (the recounts `pnpm admin usage reconcile` compares them with). The new columns are 0 until then, so
-- only the rows with something to count are written.
UPDATE "projects" p SET "agent_thread_count" = s.threads, "generation_count" = s.generations
FROM (
	SELECT "project_id", count(*) FILTER (WHERE kind = 'thread') AS threads, count(*) FILTER (WHERE kind = 'generation') AS generations
	FROM (
		SELECT "project_id", 'thread' AS kind FROM "agent_threads" WHERE "project_id" IS NOT NULL
		UNION ALL SELECT "project_id", 'generation' FROM "generations" WHERE "project_id" IS NOT NULL
	) counted
	GROUP BY "project_id"
) s
WHERE p."id" = s."project_id";
--> statement-breakpoint
UPDATE "workspaces" w SET "member_count" = s.members, "project_count" = s.projects, "agent_thread_count" = s.threads
FROM (
	SELECT "workspace_id", count(*) FILTER (WHERE kind = 'member') AS members, count(*) FILTER (WHERE kind = 'project') AS projects,
		count(*) FILTER (WHERE kind = 'thread') AS threads
	FROM (
		SELECT "workspace_id", 'member' AS kind FROM "workspace_members"
		UNION ALL SELECT "workspace_id", 'project' FROM "projects"
		UNION ALL SELECT "workspace_id", 'thread' FROM "agent_threads"
	) counted
	GROUP BY "workspace_id"
) s
WHERE w."id" = s."workspace_id";
--> statement-breakpoint
UPDATE "accounts" a SET "stored_bytes" = s.bytes
FROM (
	SELECT w."account_id", sum(f."size_bytes") AS bytes
	FROM "files" f JOIN "workspaces" w ON w."id" = f."workspace_id"
	GROUP BY w."account_id"
) s
WHERE a."id" = s."account_id";
--> statement-breakpoint
INSERT INTO "transcription_usage_daily" ("account_id", "day", "minutes")
SELECT w."account_id", (m."completed_at" AT TIME ZONE 'UTC')::date, sum(ceil(m."recorded_seconds" / 60.0))::bigint
FROM "meetings" m JOIN "workspaces" w ON w."id" = m."workspace_id"
WHERE m."transcribed" = 1 AND m."completed_at" IS NOT NULL AND m."recorded_seconds" IS NOT NULL
GROUP BY 1, 2
ON CONFLICT ("account_id", "day") DO UPDATE SET "minutes" = excluded."minutes";
