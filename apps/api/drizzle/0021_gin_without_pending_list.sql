-- Hand-edited: model_responses_output_items_idx is built online after the migrations (src/db/online-indexes.ts),
-- with fastupdate off from now on. An index built before is changed in place, and what its pending list holds is
-- merged now rather than by the settlement whose insert fills it (DECISIONS.md, History that grows).
ALTER INDEX IF EXISTS "model_responses_output_items_idx" SET (fastupdate = off);--> statement-breakpoint
SELECT gin_clean_pending_list(c.oid) FROM pg_class c WHERE c.relname = 'model_responses_output_items_idx' AND c.relnamespace = 'public'::regnamespace;
