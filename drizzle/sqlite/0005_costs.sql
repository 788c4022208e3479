CREATE TABLE `cost_histogram` (
	`project_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`traces` integer NOT NULL,
	PRIMARY KEY(`project_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `model_prices` (
	`pattern` text PRIMARY KEY NOT NULL,
	`input_price` real NOT NULL,
	`output_price` real NOT NULL,
	`cached_input_price` real,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `traces_latency`;--> statement-breakpoint
DROP INDEX `traces_project_latency`;--> statement-breakpoint
DROP INDEX `traces_tokens`;--> statement-breakpoint
DROP INDEX `traces_project_tokens`;--> statement-breakpoint
ALTER TABLE `traces` ADD `cost` real;--> statement-breakpoint
ALTER TABLE `traces` ADD `reported_cost` text;--> statement-breakpoint
CREATE INDEX `traces_cost` ON `traces` (`cost`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_project_cost` ON `traces` (`project_id`,`cost`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_latency` ON `traces` (`latency`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_project_latency` ON `traces` (`project_id`,`latency`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_tokens` ON `traces` (`token_count`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_project_tokens` ON `traces` (`project_id`,`token_count`,`trace_id`);--> statement-breakpoint
ALTER TABLE `rollup_hourly` ADD `cost_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_hourly` ADD `cost_lo` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `unpriced` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `cost_hi` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_totals` ADD `cost_lo` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Every stored step gains its cost (null: unpriced until `loupe costs recompute` prices the stored traces), and the
-- rollups are rebuilt from the traces by the store when it opens, so they count the unpriced traces exactly.
UPDATE `traces` SET `steps` = (SELECT json_group_array(json_set(`value`, '$.cost', json('null'))) FROM (SELECT `value` FROM json_each(`traces`.`steps`) ORDER BY `key`)) WHERE json_array_length(`steps`) > 0;--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('rollups_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
