-- Hand-edited. Each usage row names its key's account (GET /usage reads the account's rows of the period):
-- added empty, filled from the keys, then required.
ALTER TABLE "api_usage_daily" ADD COLUMN "account_id" text;--> statement-breakpoint
UPDATE "api_usage_daily" SET "account_id" = "api_keys"."account_id" FROM "api_keys" WHERE "api_keys"."id" = "api_usage_daily"."api_key_id";--> statement-breakpoint
ALTER TABLE "api_usage_daily" ALTER COLUMN "account_id" SET NOT NULL;--> statement-breakpoint
-- drizzle-kit wrote api_keys_people_idx, api_keys_unrevoked_browser_idx and api_usage_daily_account_idx here;
-- src/db/online-indexes.ts builds them after the migrations, CONCURRENTLY on PostgreSQL.
SELECT 1;
