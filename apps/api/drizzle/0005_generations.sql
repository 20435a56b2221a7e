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
CREATE INDEX "generation_apps_list_idx" ON "generation_apps" USING btree ("created_at","id");--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generations_app_idx" ON "generations" USING btree ("app_id","created_at","id");