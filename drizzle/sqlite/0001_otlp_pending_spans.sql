CREATE TABLE `otlp_pending_spans` (
	`trace_id` text NOT NULL,
	`span_id` text NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`is_root` integer NOT NULL,
	`received_at` integer NOT NULL,
	`span` text NOT NULL,
	PRIMARY KEY(`trace_id`, `span_id`)
);
