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
CREATE INDEX "traces_cost" ON "traces" USING btree ("cost" NULLS FIRST,"trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_cost" ON "traces" USING btree ("project_id","cost" NULLS FIRST,"trace_id");--> statement-breakpoint
CREATE INDEX "traces_latency" ON "traces" USING btree ("latency","trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_latency" ON "traces" USING btree ("project_id","latency","trace_id");--> statement-breakpoint
CREATE INDEX "traces_tokens" ON "traces" USING btree ("token_count","trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_tokens" ON "traces" USING btree ("project_id","token_count","trace_id");--> statement-breakpoint
-- Every stored step gains its cost (null: unpriced until `loupe costs recompute` prices the stored traces), and the
-- rollups are rebuilt from the traces by the store when it opens, so they count the unpriced traces exactly.
UPDATE "traces" SET "steps" = (SELECT jsonb_agg("e" || '{"cost": null}'::jsonb ORDER BY "ord") FROM jsonb_array_elements("traces"."steps") WITH ORDINALITY AS "x"("e", "ord")) WHERE jsonb_array_length("steps") > 0;--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('rollups_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
