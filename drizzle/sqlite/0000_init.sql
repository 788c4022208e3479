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
CREATE TABLE `projects` (
	`project_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`created_at` integer NOT NULL
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
CREATE INDEX `traces_created` ON `traces` (`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_project_created` ON `traces` (`project_id`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_status_created` ON `traces` (`status`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_model_created` ON `traces` (`model`,`created_at`,`trace_id`);--> statement-breakpoint
CREATE INDEX `traces_session_created` ON `traces` (`session_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `traces_user_created` ON `traces` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `traces_latency` ON `traces` (`latency`);--> statement-breakpoint
CREATE INDEX `traces_tokens` ON `traces` (`token_count`);