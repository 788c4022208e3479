CREATE TABLE "api_keys" (
	"key_id" text collate "C" PRIMARY KEY NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"key_hash" text NOT NULL,
	"key_preview" text NOT NULL,
	"environment" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "latency_histogram" (
	"project_id" text collate "C" NOT NULL,
	"bucket" integer NOT NULL,
	"traces" bigint NOT NULL,
	CONSTRAINT "latency_histogram_project_id_bucket_pk" PRIMARY KEY("project_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"project_id" text collate "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rollup_hourly" (
	"project_id" text collate "C" NOT NULL,
	"hour" bigint NOT NULL,
	"traces" bigint NOT NULL,
	"latency_sum" double precision NOT NULL,
	"tokens" bigint NOT NULL,
	CONSTRAINT "rollup_hourly_project_id_hour_pk" PRIMARY KEY("project_id","hour")
);
--> statement-breakpoint
CREATE TABLE "rollup_totals" (
	"project_id" text collate "C" NOT NULL,
	"environment" text NOT NULL,
	"model" text NOT NULL,
	"status" text NOT NULL,
	"traces" bigint NOT NULL,
	"retries" bigint NOT NULL,
	"latency_sum" double precision NOT NULL,
	"tokens" bigint NOT NULL,
	CONSTRAINT "rollup_totals_project_id_environment_model_status_pk" PRIMARY KEY("project_id","environment","model","status")
);
--> statement-breakpoint
CREATE TABLE "token_histogram" (
	"project_id" text collate "C" NOT NULL,
	"bucket" integer NOT NULL,
	"traces" bigint NOT NULL,
	CONSTRAINT "token_histogram_project_id_bucket_pk" PRIMARY KEY("project_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "trace_ids" (
	"trace_id" text collate "C" PRIMARY KEY NOT NULL,
	"project_id" text collate "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"project_id" text collate "C" NOT NULL,
	"trace_id" text collate "C" NOT NULL,
	"environment" text NOT NULL,
	"name" text,
	"model" text,
	"prompt" text NOT NULL,
	"response" text,
	"latency" double precision NOT NULL,
	"token_count" integer NOT NULL,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"status" text NOT NULL,
	"failure_reason" text,
	"retry_count" integer NOT NULL,
	"session_id" text,
	"user_id" text,
	"tags" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"steps" jsonb NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "traces_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	CONSTRAINT "traces_project_id_trace_id_pk" PRIMARY KEY("project_id","trace_id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "projects"("project_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_project" ON "api_keys" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "rollup_hourly_hour" ON "rollup_hourly" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "traces_created" ON "traces" USING btree ("created_at","trace_id","latency","token_count");--> statement-breakpoint
CREATE INDEX "traces_project_created" ON "traces" USING btree ("project_id","created_at","trace_id","latency","token_count");--> statement-breakpoint
CREATE INDEX "traces_status_created" ON "traces" USING btree ("status","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_project_status_created" ON "traces" USING btree ("project_id","status","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_model_created" ON "traces" USING btree ("model","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_environment_created" ON "traces" USING btree ("environment","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_session_created" ON "traces" USING btree ("session_id","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_user_created" ON "traces" USING btree ("user_id","created_at","trace_id");--> statement-breakpoint
CREATE INDEX "traces_latency" ON "traces" USING btree ("latency");--> statement-breakpoint
CREATE INDEX "traces_project_latency" ON "traces" USING btree ("project_id","latency");--> statement-breakpoint
CREATE INDEX "traces_tokens" ON "traces" USING btree ("token_count");--> statement-breakpoint
CREATE INDEX "traces_project_tokens" ON "traces" USING btree ("project_id","token_count");--> statement-breakpoint
CREATE INDEX "traces_retried_created" ON "traces" USING btree ("created_at","trace_id") WHERE retry_count > 0;--> statement-breakpoint
CREATE INDEX "traces_project_retried_created" ON "traces" USING btree ("project_id","created_at","trace_id") WHERE retry_count > 0;--> statement-breakpoint
CREATE INDEX "traces_seq" ON "traces" USING btree ("seq");