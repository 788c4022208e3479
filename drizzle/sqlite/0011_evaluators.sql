CREATE TABLE `evaluators` (
	`evaluator_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`project_id` text,
	`filter` text NOT NULL,
	`sample_rate` real NOT NULL,
	`score_name` text NOT NULL,
	`enabled` integer NOT NULL,
	`kind` text NOT NULL,
	`config` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
