CREATE TABLE `annotation_items` (
	`queue_id` text NOT NULL,
	`trace_id` text NOT NULL,
	`held_by` text,
	`held_until` integer,
	`done_by` text,
	`done_at` integer,
	PRIMARY KEY(`queue_id`, `trace_id`)
);
--> statement-breakpoint
CREATE INDEX `annotation_items_done` ON `annotation_items` (`queue_id`,`done_at`);--> statement-breakpoint
CREATE TABLE `annotation_queues` (
	`queue_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`project_id` text NOT NULL,
	`description` text,
	`filter` text NOT NULL,
	`score_names` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `score_configs` (
	`name` text PRIMARY KEY NOT NULL,
	`data_type` text NOT NULL,
	`min` real,
	`max` real,
	`categories` text,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `score_hourly` (
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`data_type` text NOT NULL,
	`label` text NOT NULL,
	`hour` integer NOT NULL,
	`scores` integer NOT NULL,
	`value_hi` integer NOT NULL,
	`value_lo` integer NOT NULL,
	PRIMARY KEY(`project_id`, `name`, `data_type`, `label`, `hour`)
);
--> statement-breakpoint
CREATE INDEX `score_hourly_hour` ON `score_hourly` (`hour`);--> statement-breakpoint
CREATE TABLE `scores` (
	`score_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`trace_id` text,
	`step_index` integer,
	`session_id` text,
	`user_id` text,
	`name` text NOT NULL,
	`data_type` text NOT NULL,
	`value` real NOT NULL,
	`label` text,
	`comment` text,
	`source` text NOT NULL,
	`author` text,
	`created_at` integer NOT NULL,
	`metadata` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scores_trace` ON `scores` (`trace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `scores_created` ON `scores` (`created_at`,`score_id`);--> statement-breakpoint
CREATE INDEX `scores_project_created` ON `scores` (`project_id`,`created_at`,`score_id`);--> statement-breakpoint
CREATE INDEX `scores_session` ON `scores` (`session_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `scores_user` ON `scores` (`user_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `scores_name_value` ON `scores` (`name`,`value`,`trace_id`);--> statement-breakpoint
CREATE INDEX `scores_name_label` ON `scores` (`name`,`label`,`trace_id`);--> statement-breakpoint
CREATE TABLE `trace_scores` (
	`trace_id` text NOT NULL,
	`name` text NOT NULL,
	`project_id` text NOT NULL,
	`scores` integer NOT NULL,
	`value_hi` integer NOT NULL,
	`value_lo` integer NOT NULL,
	`mean` real NOT NULL,
	PRIMARY KEY(`trace_id`, `name`)
);
--> statement-breakpoint
CREATE INDEX `trace_scores_name_mean` ON `trace_scores` (`name`,`mean`,`trace_id`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'secret' NOT NULL;