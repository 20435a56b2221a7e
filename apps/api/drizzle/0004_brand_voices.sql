CREATE TABLE "brand_voices" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"created_by_user_id" text,
	"label" text NOT NULL,
	"usage_context" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"voice_summary" text,
	"tone" jsonb NOT NULL,
	"writing_style" jsonb NOT NULL,
	"vocabulary" jsonb NOT NULL,
	"example_phrases" jsonb,
	"sources" jsonb NOT NULL,
	"credits_charged" integer NOT NULL,
	"charge_ledger_id" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "brand_voices" ADD CONSTRAINT "brand_voices_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brand_voices" ADD CONSTRAINT "brand_voices_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "brand_voices_workspace_idx" ON "brand_voices" USING btree ("workspace_id","created_at","id");