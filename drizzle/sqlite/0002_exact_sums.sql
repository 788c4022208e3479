ALTER TABLE `rollup_hourly` ADD `latency_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_hourly` ADD `latency_lo` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_hourly` ADD `tokens_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_hourly` ADD `tokens_lo` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `latency_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `latency_lo` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `tokens_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `tokens_lo` integer DEFAULT 0 NOT NULL;