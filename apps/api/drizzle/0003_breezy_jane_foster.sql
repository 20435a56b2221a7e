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
ALTER TABLE "video_analyses" ADD CONSTRAINT "video_analyses_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_analyses" ADD CONSTRAINT "video_analyses_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_analyses_workspace_idx" ON "video_analyses" USING btree ("workspace_id","created_at","id");