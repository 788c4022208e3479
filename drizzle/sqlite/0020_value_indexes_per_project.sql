DROP INDEX `traces_latency`;--> statement-breakpoint
DROP INDEX `traces_tokens`;--> statement-breakpoint
DROP INDEX `traces_cost`;