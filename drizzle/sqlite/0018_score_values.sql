CREATE TABLE `score_values` (
	`name` text NOT NULL,
	`value` real NOT NULL,
	`label` text NOT NULL,
	`project_id` text NOT NULL,
	`scores` integer NOT NULL,
	PRIMARY KEY(`name`, `value`, `label`, `project_id`)
);
--> statement-breakpoint
-- The scores of traces stored so far, counted per (name, value, label, project); from here on their writes keep it.
INSERT INTO `score_values` (`name`, `value`, `label`, `project_id`, `scores`) SELECT `name`, `value`, coalesce(`label`, ''), `project_id`, count(*) FROM `scores` WHERE `trace_id` IS NOT NULL GROUP BY `name`, `value`, coalesce(`label`, ''), `project_id`;
