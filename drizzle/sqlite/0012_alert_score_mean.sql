ALTER TABLE `alert_rules` ADD `score_name` text;--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `direction` text DEFAULT 'above' NOT NULL;