CREATE TABLE `evaluation_jobs` (
	`job_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`evaluator_id` text NOT NULL,
	`trace_id` text NOT NULL,
	`run_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`due_at` integer NOT NULL,
	`claimed_by` text,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `evaluation_jobs_due` ON `evaluation_jobs` (`due_at`,`job_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `evaluation_jobs_rule_trace` ON `evaluation_jobs` (`evaluator_id`,`trace_id`);--> statement-breakpoint
CREATE INDEX `evaluation_jobs_run` ON `evaluation_jobs` (`run_id`);--> statement-breakpoint
CREATE TABLE `evaluator_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`evaluator_id` text NOT NULL,
	`project_id` text,
	`since` integer,
	`until` integer,
	`status` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`errors` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL,
	`cursor` text,
	`enumerated` integer DEFAULT false NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `evaluator_runs_rule` ON `evaluator_runs` (`evaluator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `evaluator_stats` (
	`evaluator_id` text PRIMARY KEY NOT NULL,
	`evaluated` integer DEFAULT 0 NOT NULL,
	`errors` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_error_at` integer,
	`last_evaluated_at` integer,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	`cost` real DEFAULT 0 NOT NULL
);
