ALTER TABLE "model_responses" ADD COLUMN "conversation_id" text;--> statement-breakpoint
ALTER TABLE "model_responses" ADD COLUMN "conversation_seq_from" bigint;--> statement-breakpoint
ALTER TABLE "model_responses" ADD COLUMN "conversation_seq_to" bigint;