ALTER TABLE "traces" ALTER COLUMN "token_count" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "traces" ALTER COLUMN "prompt_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "traces" ALTER COLUMN "completion_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "latency_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "latency_lo" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "tokens_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_hourly" ADD COLUMN "tokens_lo" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "latency_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "latency_lo" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "tokens_hi" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_totals" ADD COLUMN "tokens_lo" bigint DEFAULT 0 NOT NULL;