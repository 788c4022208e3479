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
-- The sessions and users of the traces already stored are counted by the store when it opens (a rollup rebuild).
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('rollups_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
