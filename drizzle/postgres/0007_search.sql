ALTER TABLE "traces" ADD COLUMN "search_text" text;--> statement-breakpoint
-- Full-text search (src/search/text.ts): the lower-cased searchable text of each trace, indexed by pg_trgm so that any
-- substring of three characters or more is found through the index, in any language. The extension is created once
-- per database (two schemas migrating at once may race to create it: the loser finds it there). The store fills the
-- column for the traces already stored when it opens (search_stale).
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public; EXCEPTION WHEN unique_violation THEN NULL; END $$;--> statement-breakpoint
CREATE INDEX "traces_search" ON "traces" USING gin ("search_text" public.gin_trgm_ops);--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('search_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
