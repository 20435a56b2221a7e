CREATE TABLE "credit_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"credits" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meeting_bot_webhooks" (
	"message_id" text PRIMARY KEY NOT NULL,
	"received_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE "generation_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"description" text NOT NULL,
	"input_fields" jsonb NOT NULL,
	"output_content_type" text NOT NULL,
	"estimated_credits" integer NOT NULL,
	"max_output_tokens" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"thread_id" text NOT NULL,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"status" text NOT NULL,
	"sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"credits_used" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "model_responses" ALTER COLUMN "persona_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "created_by_user_id" text;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "persona_id" text;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "title_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "message_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "credits_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_threads" ADD COLUMN "last_message_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "created_by_user_id" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "output" text NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "content_type" text NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "app_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "app" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "brand_voice" jsonb;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "persona" jsonb;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "input_data" jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "prompt_tokens" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "completion_tokens" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "credits_used" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "provider_bot_id" text;--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "provider_changes_seen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_schema_results" ADD CONSTRAINT "meeting_schema_results_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_schemas" ADD CONSTRAINT "meeting_schemas_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_schemas" ADD CONSTRAINT "meeting_schemas_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_messages" ADD CONSTRAINT "agent_messages_thread_id_agent_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."agent_threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_reservations_account_idx" ON "credit_reservations" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_schema_results_meeting_schema_idx" ON "meeting_schema_results" USING btree ("meeting_id","schema_id");--> statement-breakpoint
CREATE INDEX "meeting_schema_results_schema_idx" ON "meeting_schema_results" USING btree ("schema_id");--> statement-breakpoint
CREATE INDEX "meeting_schemas_list_idx" ON "meeting_schemas" USING btree ("list_at","id");--> statement-breakpoint
CREATE INDEX "meeting_schemas_workspace_idx" ON "meeting_schemas" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "generation_apps_list_idx" ON "generation_apps" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "agent_messages_thread_idx" ON "agent_messages" USING btree ("thread_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_messages_one_answer_idx" ON "agent_messages" USING btree ("thread_id") WHERE "agent_messages"."status" = 'in_progress';--> statement-breakpoint
ALTER TABLE "agent_threads" ADD CONSTRAINT "agent_threads_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generations_app_idx" ON "generations" USING btree ("app_id","created_at","id");--> statement-breakpoint
CREATE INDEX "meetings_provider_bot_idx" ON "meetings" USING btree ("provider_bot_id");