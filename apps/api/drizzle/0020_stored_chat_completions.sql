ALTER TABLE "model_responses" ADD COLUMN "metadata" jsonb;
-- model_responses_chat_idx is built online after the migrations (src/db/online-indexes.ts).
