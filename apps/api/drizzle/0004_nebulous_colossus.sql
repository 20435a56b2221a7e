CREATE TABLE "news_feeds" (
	"url" text PRIMARY KEY NOT NULL,
	"etag" text,
	"last_modified" text,
	"last_polled_at" timestamp (3) with time zone,
	"last_error" text,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "news_stories" (
	"id" text PRIMARY KEY NOT NULL,
	"canonical_url" text NOT NULL,
	"title_key" text NOT NULL,
	"name" text NOT NULL,
	"summary" text NOT NULL,
	"source_name" text NOT NULL,
	"source_url" text NOT NULL,
	"url" text NOT NULL,
	"image_url" text,
	"author" text,
	"language" text NOT NULL,
	"region" text,
	"topics" text[] NOT NULL,
	"feed_url" text,
	"published_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "news_stories_canonical_url_idx" ON "news_stories" USING btree ("canonical_url");--> statement-breakpoint
CREATE UNIQUE INDEX "news_stories_title_key_idx" ON "news_stories" USING btree ("title_key");--> statement-breakpoint
CREATE INDEX "news_stories_published_idx" ON "news_stories" USING btree ("published_at","id");--> statement-breakpoint
CREATE INDEX "news_stories_search_idx" ON "news_stories" USING gin (to_tsvector('simple', "name" || ' ' || "summary"));