ALTER TABLE "model_responses" ADD COLUMN "turn_chars" integer;
-- Hand-edited: model_responses_output_items_idx is built online after the migrations (db/online-indexes.ts).
