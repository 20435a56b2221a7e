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
ALTER TABLE "news_digests" ADD CONSTRAINT "news_digests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "news_digests" ADD CONSTRAINT "news_digests_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "news_digests_workspace_idx" ON "news_digests" USING btree ("workspace_id","created_at","id");