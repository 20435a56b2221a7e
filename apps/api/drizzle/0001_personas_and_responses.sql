CREATE TABLE "model_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"object" text NOT NULL,
	"account_id" text NOT NULL,
	"workspace_id" text,
	"api_key_id" text,
	"request_id" text,
	"persona_id" text NOT NULL,
	"status" text NOT NULL,
	"stream" boolean NOT NULL,
	"engine" text NOT NULL,
	"upstream_model" text,
	"request" jsonb NOT NULL,
	"body" jsonb NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"credits_used" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personas" (
	"id" text PRIMARY KEY NOT NULL,
	"is_custom" boolean NOT NULL,
	"account_id" text,
	"workspace_id" text,
	"created_by_user_id" text,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"description" text NOT NULL,
	"type" text,
	"pipeline_type" text NOT NULL,
	"details" jsonb NOT NULL,
	"ai_generated" jsonb,
	"credits_charged" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "personas_owner_check" CHECK (("personas"."is_custom" and "personas"."workspace_id" is not null and "personas"."account_id" is not null) or (not "personas"."is_custom" and "personas"."workspace_id" is null and "personas"."account_id" is null))
);
--> statement-breakpoint
ALTER TABLE "model_responses" ADD CONSTRAINT "model_responses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_responses" ADD CONSTRAINT "model_responses_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_responses" ADD CONSTRAINT "model_responses_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personas" ADD CONSTRAINT "personas_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personas" ADD CONSTRAINT "personas_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personas" ADD CONSTRAINT "personas_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "model_responses_account_idx" ON "model_responses" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "model_responses_workspace_idx" ON "model_responses" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "personas_page_idx" ON "personas" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "personas_workspace_idx" ON "personas" USING btree ("workspace_id","created_at","id");