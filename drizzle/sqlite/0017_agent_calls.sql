CREATE TABLE `call_totals` (
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`traces` integer NOT NULL,
	`calls` integer NOT NULL,
	`failures` integer NOT NULL,
	`latency_hi` integer NOT NULL,
	`latency_lo` integer NOT NULL,
	`timed` integer NOT NULL,
	PRIMARY KEY(`project_id`, `kind`, `name`)
);
--> statement-breakpoint
CREATE TABLE `trace_calls` (
	`trace_id` text NOT NULL,
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`calls` integer NOT NULL,
	`failures` integer NOT NULL,
	`latency_micros` integer NOT NULL,
	`timed` integer NOT NULL,
	PRIMARY KEY(`trace_id`, `kind`, `name`)
);
--> statement-breakpoint
CREATE INDEX `trace_calls_name` ON `trace_calls` (`kind`,`name`,`project_id`,`trace_id`);--> statement-breakpoint
-- Traces stored before trace_calls existed: their calls of agents and tools, from their steps, as traceCallRows
-- (src/store/rollups.ts) counts them — a latency in whole microseconds, rounded half up. The rollups (call_totals
-- among them) are then rebuilt from the traces, exactly, by the store when it opens (src/store/rollup-rebuild.ts).
INSERT INTO `trace_calls` (`trace_id`, `project_id`, `kind`, `name`, `calls`, `failures`, `latency_micros`, `timed`)
  SELECT t.`trace_id`, t.`project_id`, json_extract(s.value, '$.type') AS kind,
    CASE WHEN json_extract(s.value, '$.type') = 'tool'
      THEN coalesce(json_extract(s.value, '$.tool'), json_extract(s.value, '$.name'))
      ELSE json_extract(s.value, '$.name') END AS call_name,
    count(*), sum(json_extract(s.value, '$.status') = 'failed'),
    coalesce(sum(cast(json_extract(s.value, '$.latency') * 1000 + 0.5 AS integer)), 0),
    count(json_extract(s.value, '$.latency'))
  FROM `traces` t, json_each(t.`steps`) s
  WHERE json_extract(s.value, '$.type') IN ('agent', 'tool')
  GROUP BY t.`trace_id`, t.`project_id`, kind, call_name;--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('rollups_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
