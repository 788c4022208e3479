DROP INDEX `session_totals_user_last`;--> statement-breakpoint
CREATE INDEX `session_totals_session_last` ON `session_totals` (`session_id`,`last_at`,`project_id`);--> statement-breakpoint
CREATE INDEX `session_totals_user_last` ON `session_totals` (`user_id`,`last_at`,`session_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `user_totals_user_last` ON `user_totals` (`user_id`,`last_at`,`project_id`);