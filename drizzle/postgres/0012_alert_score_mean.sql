ALTER TABLE "alert_rules" ADD COLUMN "score_name" text;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD COLUMN "direction" text DEFAULT 'above' NOT NULL;