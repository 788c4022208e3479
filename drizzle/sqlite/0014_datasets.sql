CREATE TABLE `dataset_items` (
	`item_id` text NOT NULL,
	`version` integer NOT NULL,
	`dataset_id` text NOT NULL,
	`status` text NOT NULL,
	`input` text NOT NULL,
	`expected_output` text,
	`metadata` text NOT NULL,
	`source_trace_id` text,
	`created_at` integer NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer,
	PRIMARY KEY(`item_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `dataset_items_dataset` ON `dataset_items` (`dataset_id`,`item_id`,`version`);--> statement-breakpoint
CREATE TABLE `datasets` (
	`dataset_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `datasets_project_name` ON `datasets` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `experiments` (
	`experiment_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`dataset_id` text NOT NULL,
	`name` text NOT NULL,
	`as_of` integer NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `experiments_dataset` ON `experiments` (`dataset_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `experiments_project` ON `experiments` (`project_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `traces` ADD `experiment_id` text;--> statement-breakpoint
ALTER TABLE `traces` ADD `dataset_item_id` text;--> statement-breakpoint
CREATE INDEX `traces_experiment` ON `traces` (`experiment_id`,`dataset_item_id`) WHERE experiment_id is not null;