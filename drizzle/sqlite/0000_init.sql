CREATE TABLE `api_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_preview` text NOT NULL,
	`environment` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_project` ON `api_keys` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `latency_histogram` (
	`project_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`traces` integer NOT NULL,
	PRIMARY KEY(`project_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`project_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rollup_hourly` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`traces` integer NOT NULL,
	`latency_sum` real NOT NULL,
	`tokens` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`)
);
--> statement-breakpoint
CREATE INDEX `rollup_hourly_hour` ON `rollup_hourly` (`hour`);--> statement-breakpoint
CREATE TABLE `rollup_totals` (
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`traces` integer NOT NULL,
	`retries` integer NOT NULL,
	`latency_sum` real NOT NULL,
	`tokens` integer NOT NULL,
	PRIMARY KEY(`project_id`, `environment`, `model`, `status`)
);
--> statement-breakpoint
CREATE TABLE `token_histogram` (
	`project_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`traces` integer NOT NULL,
	PRIMARY KEY(`project_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `traces` (
	`trace_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text,
	`model` text,
	`prompt` text NOT NULL,
	`response` text,
	`latency` real NOT NULL,
	`token_count` integer NOT NULL,
	`prompt_tokens` integer,
	`completion_tokens` integer,
	`status` text NOT NULL,
	`failure_reason` text,
	`retry_count` integer NOT NULL,
	`session_id` text,
	`user_id` text,
	`tags` text NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`steps` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `traces_created` ON `traces` (`created_at`,`trace_id`,`latency`,`token_count`);--> statement-breakpoint
CREATE INDEX `traces_project_created` ON `traces` (`project_id`,`created_at`,`trace_id`,`latency`,`token_count`);--> statement-breakpoint
CREATE INDEX `traces_status_created` ON `traces` (`status`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_project_status_created` ON `traces` (`project_id`,`status`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_model_created` ON `traces` (`model`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_environment_created` ON `traces` (`environment`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_session_created` ON `traces` (`session_id`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_user_created` ON `traces` (`user_id`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_latency` ON `traces` (`latency`);--> statement-breakpoint
CREATE INDEX `traces_project_latency` ON `traces` (`project_id`,`latency`);--> statement-breakpoint
CREATE INDEX `traces_tokens` ON `traces` (`token_count`);--> statement-breakpoint
CREATE INDEX `traces_project_tokens` ON `traces` (`project_id`,`token_count`);--> statement-breakpoint
CREATE INDEX `traces_retried_created` ON `traces` (`created_at`,`trace_id`) WHERE retry_count > 0;--> statement-breakpoint
CREATE INDEX `traces_project_retried_created` ON `traces` (`project_id`,`created_at`,`trace_id`) WHERE retry_count > 0;