ALTER TABLE "folders" ADD COLUMN "file_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written from here: fill the counter from the files, in one grouped scan (the recount `pnpm admin
-- usage reconcile` compares it with). The new column is 0 until then, so only folders holding files are written.
UPDATE "folders" f SET "file_count" = s.files
FROM (SELECT "folder_id", count(*) AS files FROM "files" WHERE "folder_id" IS NOT NULL GROUP BY "folder_id") s
WHERE f."id" = s."folder_id";
