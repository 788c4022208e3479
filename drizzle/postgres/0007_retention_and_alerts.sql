CREATE TABLE "alert_events" (
	"event_id" text collate "C" PRIMARY KEY NOT NULL,
	"rule_id" text collate "C" NOT NULL,
	"rule_name" text NOT NULL,
	"project_id" text collate "C",
	"metric" text NOT NULL,
	"kind" text NOT NULL,
	"value" double precision NOT NULL,
	"threshold" double precision NOT NULL,
	"at" bigint NOT NULL,
	"delivery" text NOT NULL,
	"attempts" integer NOT NULL,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"rule_id" text collate "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"project_id" text collate "C",
	"metric" text NOT NULL,
	"window_minutes" integer NOT NULL,
	"threshold" double precision NOT NULL,
	"destination_type" text NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"state" text NOT NULL,
	"last_value" double precision,
	"last_evaluated_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_retention" (
	"project_id" text collate "C" PRIMARY KEY NOT NULL,
	"retention_days" integer,
	"retention_max_traces" bigint
);
--> statement-breakpoint
ALTER TABLE "project_retention" ADD CONSTRAINT "project_retention_project_id_projects_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "projects"("project_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_events_at" ON "alert_events" USING btree ("at","event_id");--> statement-breakpoint
CREATE INDEX "alert_events_rule" ON "alert_events" USING btree ("rule_id","at");