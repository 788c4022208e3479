CREATE TABLE "loupe_meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rollup_hourly" DROP COLUMN "latency_sum";--> statement-breakpoint
ALTER TABLE "rollup_hourly" DROP COLUMN "tokens";--> statement-breakpoint
ALTER TABLE "rollup_totals" DROP COLUMN "latency_sum";--> statement-breakpoint
ALTER TABLE "rollup_totals" DROP COLUMN "tokens";--> statement-breakpoint
-- Values stored before numbers were bounded, brought within the bounds a real call has; latencies kept to whole
-- microseconds like every latency stored from now on. The rollups are then rebuilt from the traces, exactly, by the
-- store when it opens (src/store/rollup-rebuild.ts).
UPDATE "traces" SET "latency" = 604800000 WHERE "latency" > 604800000;--> statement-breakpoint
UPDATE "traces" SET "latency" = round("latency"::numeric, 3)::float8 WHERE "latency" <> round("latency"::numeric, 3)::float8;--> statement-breakpoint
UPDATE "traces" SET "token_count" = 100000000000 WHERE "token_count" > 100000000000;--> statement-breakpoint
UPDATE "traces" SET "retry_count" = 1000000 WHERE "retry_count" > 1000000;--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('rollups_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
