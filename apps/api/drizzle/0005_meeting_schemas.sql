CREATE TABLE "meeting_schema_results" (
	"id" text PRIMARY KEY NOT NULL,
	"meeting_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"schema_id" text NOT NULL,
	"schema_name" text NOT NULL,
	"schema_version" integer NOT NULL,
	"schema_category" text NOT NULL,
	"field_values" jsonb NOT NULL,
	"scores" jsonb NOT NULL,
	"overall_score" real,
	"evidence" jsonb NOT NULL,
	"dropped_quotes" integer DEFAULT 0 NOT NULL,
	"engine" text NOT NULL,
	"processing_time_ms" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meeting_schemas" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"user_id" text,
	"is_built_in" integer DEFAULT 0 NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"category" text NOT NULL,
	"is_published" integer DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"tags" jsonb,
	"fields" jsonb NOT NULL,
	"list_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "meeting_schema_results" ADD CONSTRAINT "meeting_schema_results_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_schemas" ADD CONSTRAINT "meeting_schemas_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_schemas" ADD CONSTRAINT "meeting_schemas_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_schema_results_meeting_schema_idx" ON "meeting_schema_results" USING btree ("meeting_id","schema_id");--> statement-breakpoint
CREATE INDEX "meeting_schema_results_schema_idx" ON "meeting_schema_results" USING btree ("schema_id");--> statement-breakpoint
CREATE INDEX "meeting_schemas_list_idx" ON "meeting_schemas" USING btree ("list_at","id");--> statement-breakpoint
CREATE INDEX "meeting_schemas_workspace_idx" ON "meeting_schemas" USING btree ("workspace_id");