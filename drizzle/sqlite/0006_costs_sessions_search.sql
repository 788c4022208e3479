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
CREATE TABLE `session_totals` (
	`project_id` text NOT NULL,
	`session_id` text NOT NULL,
	`user_id` text,
	`user_at` integer,
	`traces` integer NOT NULL,
	`unpriced` integer NOT NULL,
	`failed` integer NOT NULL,
	`warnings` integer NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`latency_hi` integer DEFAULT 0 NOT NULL,
	`latency_lo` integer DEFAULT 0 NOT NULL,
	`tokens_hi` integer DEFAULT 0 NOT NULL,
	`tokens_lo` integer DEFAULT 0 NOT NULL,
	`cost_hi` integer DEFAULT 0 NOT NULL,
	`cost_lo` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `session_id`)
);
--> statement-breakpoint
CREATE INDEX `session_totals_last` ON `session_totals` (`last_at`,`session_id`);--> statement-breakpoint
CREATE INDEX `session_totals_project_last` ON `session_totals` (`project_id`,`last_at`,`session_id`);--> statement-breakpoint
CREATE INDEX `session_totals_user_last` ON `session_totals` (`user_id`,`last_at`,`session_id`);--> statement-breakpoint
CREATE TABLE `user_totals` (
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`traces` integer NOT NULL,
	`unpriced` integer NOT NULL,
	`failed` integer NOT NULL,
	`warnings` integer NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`latency_hi` integer DEFAULT 0 NOT NULL,
	`latency_lo` integer DEFAULT 0 NOT NULL,
	`tokens_hi` integer DEFAULT 0 NOT NULL,
	`tokens_lo` integer DEFAULT 0 NOT NULL,
	`cost_hi` integer DEFAULT 0 NOT NULL,
	`cost_lo` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `user_totals_last` ON `user_totals` (`last_at`,`user_id`);--> statement-breakpoint
CREATE INDEX `user_totals_project_last` ON `user_totals` (`project_id`,`last_at`,`user_id`);--> statement-breakpoint
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
-- rollups (unpriced counts, sessions, users) are rebuilt from the traces by the store when it opens.
UPDATE `traces` SET `steps` = (SELECT json_group_array(json_set(`value`, '$.cost', json('null'))) FROM (SELECT `value` FROM json_each(`traces`.`steps`) ORDER BY `key`)) WHERE json_array_length(`steps`) > 0;--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('rollups_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';--> statement-breakpoint
-- Full-text search (src/search/text.ts): each trace's lower-cased searchable text under the trace's rowid, in an FTS5
-- table with the trigram tokenizer, so that any substring of three characters or more is found through the index,
-- in any language. The store fills it from the traces already stored when it opens (search_stale).
CREATE VIRTUAL TABLE `traces_search` USING fts5(`body`, tokenize = 'trigram case_sensitive 1');--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('search_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
