CREATE TABLE "meeting_schema_usage" (
	"schema_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"results" integer NOT NULL,
	CONSTRAINT "meeting_schema_usage_schema_id_workspace_id_pk" PRIMARY KEY("schema_id","workspace_id")
);
--> statement-breakpoint
ALTER TABLE "meeting_schemas" ADD COLUMN "downloads" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-edited: drizzle-kit wrote meeting_schemas_workspace_page_idx and meeting_schemas_shared_page_idx (the
-- schema list's pages) here; src/db/online-indexes.ts builds them after the migrations, CONCURRENTLY on PostgreSQL.
--
-- Each result written or deleted (a meeting's or workspace's delete cascades to them) moves its schema's and
-- workspace's count, in that statement's transaction; a workspace's first result of a schema, or its last one
-- going, moves the schema's `downloads`. Creating the trigger locks the results against writes until this
-- migration commits, so the backfill below counts what the trigger will go on from.
CREATE FUNCTION meeting_schema_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  remaining integer;
  created boolean;
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE meeting_schema_usage SET results = results - 1
    WHERE schema_id = OLD.schema_id AND workspace_id = OLD.workspace_id
    RETURNING results INTO remaining;
    IF remaining = 0 THEN
      DELETE FROM meeting_schema_usage WHERE schema_id = OLD.schema_id AND workspace_id = OLD.workspace_id;
      UPDATE meeting_schemas SET downloads = downloads - 1 WHERE id = OLD.schema_id;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO meeting_schema_usage AS usage (schema_id, workspace_id, results) VALUES (NEW.schema_id, NEW.workspace_id, 1)
    ON CONFLICT (schema_id, workspace_id) DO UPDATE SET results = usage.results + 1
    RETURNING (xmax = 0) INTO created;
    IF created THEN
      UPDATE meeting_schemas SET downloads = downloads + 1 WHERE id = NEW.schema_id;
    END IF;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER meeting_schema_usage_count AFTER INSERT OR DELETE ON "meeting_schema_results"
FOR EACH ROW EXECUTE FUNCTION meeting_schema_usage_count();--> statement-breakpoint
-- A run again upserts the result with the same schema and workspace: only a change of either moves a count.
CREATE TRIGGER meeting_schema_usage_moved AFTER UPDATE OF schema_id, workspace_id ON "meeting_schema_results"
FOR EACH ROW WHEN (OLD.schema_id IS DISTINCT FROM NEW.schema_id OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
EXECUTE FUNCTION meeting_schema_usage_count();--> statement-breakpoint
-- Hand-written from here: the counts of the results already stored, in one grouped scan each (the recount
-- `pnpm admin usage reconcile` compares them with).
INSERT INTO "meeting_schema_usage" ("schema_id", "workspace_id", "results")
SELECT "schema_id", "workspace_id", count(*) FROM "meeting_schema_results" GROUP BY "schema_id", "workspace_id";--> statement-breakpoint
UPDATE "meeting_schemas" s SET "downloads" = u.workspaces
FROM (SELECT "schema_id", count(*) AS workspaces FROM "meeting_schema_usage" GROUP BY "schema_id") u
WHERE s."id" = u."schema_id";
