CREATE TABLE "cost_histogram" (
	"project_id" text collate "C" NOT NULL,
	"bucket" integer NOT NULL,
	"traces" bigint NOT NULL,
	CONSTRAINT "cost_histogram_project_id_bucket_pk" PRIMARY KEY("project_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "model_prices" (
	"pattern" text collate "C" PRIMARY KEY NOT NULL,
	"input_price" double precision NOT NULL,
	"output_price" double precision NOT NULL,
	"cached_input_price" double precision,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "session_totals" (
	"project_id" text collate "C" NOT NULL,
	"session_id" text collate "C" NOT NULL,
	"user_id" text collate "C",
	"user_at" bigint,
	"traces" bigint NOT NULL,
	"unpriced" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"warnings" bigint NOT NULL,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"latency_hi" bigint DEFAULT 0 NOT NULL,
	"latency_lo" bigint DEFAULT 0 NOT NULL,
	"tokens_hi" bigint DEFAULT 0 NOT NULL,
	"tokens_lo" bigint DEFAULT 0 NOT NULL,
	"cost_hi" bigint DEFAULT 0 NOT NULL,
	"cost_lo" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "session_totals_project_id_session_id_pk" PRIMARY KEY("project_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "user_totals" (
	"project_id" text collate "C" NOT NULL,
	"user_id" text collate "C" NOT NULL,
	"traces" bigint NOT NULL,
	"unpriced" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"warnings" bigint NOT NULL,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"latency_hi" bigint DEFAULT 0 NOT NULL,
	"latency_lo" bigint DEFAULT 0 NOT NULL,
	"tokens_hi" bigint DEFAULT 0 NOT NULL,
	"tokens_lo" bigint DEFAULT 0 NOT NULL,
	"cost_hi" bigint DEFAULT 0 NOT NULL,
	"cost_lo" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_totals_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
DROP INDEX "traces_latency";--> statement-breakpoint
DROP INDEX "traces_project_latency";--> statement-breakpoint
DROP INDEX "traces_tokens";--> statement-breakpoint
DROP INDEX "traces_project_tokens";--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "cost_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "cost_lo" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "unpriced" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "cost_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "cost_lo" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "cost" double precision;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "reported_cost" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "search_text" text;--> statement-breakpoint
CREATE INDEX "session_totals_last" ON "session_totals" USING btree ("last_at","session_id");--> statement-breakpoint
CREATE INDEX "session_totals_project_last" ON "session_totals" USING btree ("project_id","last_at","session_id");--> statement-breakpoint
CREATE INDEX "session_totals_user_last" ON "session_totals" USING btree ("user_id","last_at","session_id");--> statement-breakpoint
CREATE INDEX "user_totals_last" ON "user_totals" USING btree ("last_at","user_id");--> statement-breakpoint
CREATE INDEX "user_totals_project_last" ON "user_totals" USING btree ("project_id","last_at","user_id");--> statement-breakpoint
CREATE INDEX "traces_cost" ON "traces" USING btree ("cost" NULLS FIRST,"trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_cost" ON "traces" USING btree ("project_id","cost" NULLS FIRST,"trace_id");--> statement-breakpoint
CREATE INDEX "traces_latency" ON "traces" USING btree ("latency","trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_latency" ON "traces" USING btree ("project_id","latency","trace_id");--> statement-breakpoint
CREATE INDEX "traces_tokens" ON "traces" USING btree ("token_count","trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_tokens" ON "traces" USING btree ("project_id","token_count","trace_id");--> statement-breakpoint
-- Every stored step gains its cost (null: unpriced until `loupe costs recompute` prices the stored traces), and the
-- rollups (unpriced counts, sessions, users) are rebuilt from the traces by the store when it opens.
UPDATE "traces" SET "steps" = (SELECT jsonb_agg("e" || '{"cost": null}'::jsonb ORDER BY "ord") FROM jsonb_array_elements("traces"."steps") WITH ORDINALITY AS "x"("e", "ord")) WHERE jsonb_array_length("steps") > 0;--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('rollups_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';--> statement-breakpoint
-- Full-text search (src/search/text.ts): the lower-cased searchable text of each trace, indexed by pg_trgm so that any
-- substring of three characters or more is found through the index, in any language. The extension is created once
-- per database (two schemas migrating at once may race to create it: the loser finds it there). The store fills the
-- column for the traces already stored when it opens (search_stale).
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public; EXCEPTION WHEN unique_violation THEN NULL; END $$;--> statement-breakpoint
CREATE INDEX "traces_search" ON "traces" USING gin ("search_text" public.gin_trgm_ops);--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('search_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
