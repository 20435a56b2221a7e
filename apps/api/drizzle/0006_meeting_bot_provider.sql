CREATE TABLE "meeting_bot_webhooks" (
	"message_id" text PRIMARY KEY NOT NULL,
	"received_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "provider_bot_id" text;--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "provider_changes_seen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "meetings_provider_bot_idx" ON "meetings" USING btree ("provider_bot_id");