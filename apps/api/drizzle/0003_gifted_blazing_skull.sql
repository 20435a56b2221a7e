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
ALTER TABLE "meeting_transcripts" ADD CONSTRAINT "meeting_transcripts_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meetings_workspace_idx" ON "meetings" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "meetings_key_idx" ON "meetings" USING btree ("workspace_id","meeting_key");