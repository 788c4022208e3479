CREATE TABLE `alert_events` (
	`event_id` text PRIMARY KEY NOT NULL,
	`rule_id` text NOT NULL,
	`rule_name` text NOT NULL,
	`project_id` text,
	`metric` text NOT NULL,
	`kind` text NOT NULL,
	`value` real NOT NULL,
	`threshold` real NOT NULL,
	`at` integer NOT NULL,
	`delivery` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text
);
--> statement-breakpoint
CREATE INDEX `alert_events_at` ON `alert_events` (`at`,`event_id`);--> statement-breakpoint
CREATE INDEX `alert_events_rule` ON `alert_events` (`rule_id`,`at`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`rule_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`project_id` text,
	`metric` text NOT NULL,
	`window_minutes` integer NOT NULL,
	`threshold` real NOT NULL,
	`destination_type` text NOT NULL,
	`url` text NOT NULL,
	`secret` text,
	`state` text NOT NULL,
	`last_value` real,
	`last_evaluated_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `project_retention` (
	`project_id` text PRIMARY KEY NOT NULL,
	`retention_days` integer,
	`retention_max_traces` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
