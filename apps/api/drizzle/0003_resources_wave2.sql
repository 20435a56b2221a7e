CREATE TABLE "video_analyses" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"created_by_user_id" text,
	"status" text NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"video_url" text,
	"file_id" text,
	"title" text NOT NULL,
	"brand" text NOT NULL,
	"product" text NOT NULL,
	"primary_intent" text NOT NULL,
	"secondary_intent" text NOT NULL,
	"tertiary_intent" text NOT NULL,
	"goal" text NOT NULL,
	"chunk_duration" integer NOT NULL,
	"frames_per_chunk" integer NOT NULL,
	"duration_seconds" double precision,
	"credits_used" integer NOT NULL,
	"charge_ledger_id" text,
	"error" text,
	"result" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "meeting_transcripts" (
	"meeting_id" text PRIMARY KEY NOT NULL,
	"language" text NOT NULL,
	"duration_seconds" real NOT NULL,
	"speakers" jsonb NOT NULL,
	"segments" jsonb NOT NULL,
	"word_count" integer NOT NULL,
	"analysis" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	"analysed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "meetings" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"created_by_user_id" text,
	"title" text NOT NULL,
	"meeting_url" text,
	"meeting_key" text,
	"source" text NOT NULL,
	"source_file_id" text,
	"bot_name" text NOT NULL,
	"join_type" text NOT NULL,
	"join_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"status" text NOT NULL,
	"status_changes" jsonb NOT NULL,
	"recording_key" text,
	"participant_count" integer DEFAULT 0 NOT NULL,
	"analysis_status" text NOT NULL,
	"schema_ids" jsonb NOT NULL,
	"recorded_seconds" real,
	"transcribed" integer DEFAULT 0 NOT NULL,
	"cancelled_at" timestamp (3) with time zone,
	"cancelled_by" text,
	"cancel_reason" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "focus_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"created_by_user_id" text,
	"question" text NOT NULL,
	"instructions" text,
	"personas" jsonb NOT NULL,
	"status" text NOT NULL,
	"answers" jsonb NOT NULL,
	"summary" jsonb,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"credits_used" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "news_digests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"persona_id" text NOT NULL,
	"persona" jsonb NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"key_takeaways" jsonb NOT NULL,
	"period" text,
	"topics" text[] NOT NULL,
	"period_start" timestamp (3) with time zone NOT NULL,
	"period_end" timestamp (3) with time zone NOT NULL,
	"items" jsonb NOT NULL,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL,
	"credits_used" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "news_feeds" (
	"url" text PRIMARY KEY NOT NULL,
	"etag" text,
	"last_modified" text,
	"last_polled_at" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "news_stories" (
	"id" text PRIMARY KEY NOT NULL,
	"canonical_url" text NOT NULL,
	"title_key" text NOT NULL,
	"name" text NOT NULL,
	"summary" text NOT NULL,
	"source_name" text NOT NULL,
	"source_url" text NOT NULL,
	"url" text NOT NULL,
	"image_url" text,
	"author" text,
	"language" text NOT NULL,
	"region" text,
	"topics" text[] NOT NULL,
	"feed_url" text,
	"published_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "video_analyses" ADD CONSTRAINT "video_analyses_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_analyses" ADD CONSTRAINT "video_analyses_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "focus_groups" ADD CONSTRAINT "focus_groups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "focus_groups" ADD CONSTRAINT "focus_groups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "focus_groups" ADD CONSTRAINT "focus_groups_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "news_digests" ADD CONSTRAINT "news_digests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "news_digests" ADD CONSTRAINT "news_digests_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_analyses_workspace_idx" ON "video_analyses" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "meetings_workspace_idx" ON "meetings" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "meetings_key_idx" ON "meetings" USING btree ("workspace_id","meeting_key");--> statement-breakpoint
CREATE INDEX "focus_groups_workspace_idx" ON "focus_groups" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "news_digests_workspace_idx" ON "news_digests" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "news_stories_canonical_url_idx" ON "news_stories" USING btree ("canonical_url");--> statement-breakpoint
CREATE UNIQUE INDEX "news_stories_title_key_idx" ON "news_stories" USING btree ("title_key");--> statement-breakpoint
CREATE INDEX "news_stories_published_idx" ON "news_stories" USING btree ("published_at","id");--> statement-breakpoint
CREATE INDEX "news_stories_search_idx" ON "news_stories" USING gin (to_tsvector('simple', "name" || ' ' || "summary"));