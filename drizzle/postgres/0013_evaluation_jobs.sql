CREATE TABLE "evaluation_jobs" (
	"project_id" text collate "C" NOT NULL,
	"job_id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "evaluation_jobs_job_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"evaluator_id" text collate "C" NOT NULL,
	"trace_id" text collate "C" NOT NULL,
	"run_id" text collate "C",
	"attempts" integer DEFAULT 0 NOT NULL,
	"due_at" bigint NOT NULL,
	"claimed_by" text,
	"last_error" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "evaluation_jobs_project_id_job_id_pk" PRIMARY KEY("project_id","job_id")
);
--> statement-breakpoint
CREATE TABLE "evaluator_runs" (
	"run_id" text collate "C" PRIMARY KEY NOT NULL,
	"evaluator_id" text collate "C" NOT NULL,
	"project_id" text collate "C",
	"since" bigint,
	"until" bigint,
	"status" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"cursor" text,
	"enumerated" boolean DEFAULT false NOT NULL,
	"lease_until" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "evaluator_stats" (
	"evaluator_id" text collate "C" PRIMARY KEY NOT NULL,
	"evaluated" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_error_at" bigint,
	"last_evaluated_at" bigint,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "evaluation_jobs_due" ON "evaluation_jobs" USING btree ("due_at","job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "evaluation_jobs_rule_trace" ON "evaluation_jobs" USING btree ("evaluator_id","trace_id");--> statement-breakpoint
CREATE INDEX "evaluation_jobs_run" ON "evaluation_jobs" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "evaluator_runs_rule" ON "evaluator_runs" USING btree ("evaluator_id","created_at");