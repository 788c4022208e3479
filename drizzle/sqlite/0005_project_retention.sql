CREATE TABLE `project_retention` (
	`project_id` text PRIMARY KEY NOT NULL,
	`retention_days` integer,
	`retention_max_traces` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`project_id`) ON UPDATE no action ON DELETE no action
);
