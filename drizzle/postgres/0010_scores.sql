CREATE TABLE "annotation_items" (
	"queue_id" text collate "C" NOT NULL,
	"trace_id" text collate "C" NOT NULL,
	"held_by" text,
	"held_until" bigint,
	"done_by" text,
	"done_at" bigint,
	CONSTRAINT "annotation_items_queue_id_trace_id_pk" PRIMARY KEY("queue_id","trace_id")
);
--> statement-breakpoint
CREATE TABLE "annotation_queues" (
	"queue_id" text collate "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"description" text,
	"filter" jsonb NOT NULL,
	"score_names" jsonb NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_configs" (
	"name" text collate "C" PRIMARY KEY NOT NULL,
	"data_type" text NOT NULL,
	"min" double precision,
	"max" double precision,
	"categories" jsonb,
	"description" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_hourly" (
	"project_id" text collate "C" NOT NULL,
	"name" text collate "C" NOT NULL,
	"data_type" text NOT NULL,
	"label" text collate "C" NOT NULL,
	"hour" bigint NOT NULL,
	"scores" bigint NOT NULL,
	"value_hi" bigint NOT NULL,
	"value_lo" bigint NOT NULL,
	CONSTRAINT "score_hourly_project_id_name_data_type_label_hour_pk" PRIMARY KEY("project_id","name","data_type","label","hour")
);
--> statement-breakpoint
CREATE TABLE "scores" (
	"score_id" text collate "C" PRIMARY KEY NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"trace_id" text collate "C",
	"step_index" integer,
	"session_id" text collate "C",
	"user_id" text collate "C",
	"name" text collate "C" NOT NULL,
	"data_type" text NOT NULL,
	"value" double precision NOT NULL,
	"label" text collate "C",
	"comment" text,
	"source" text NOT NULL,
	"author" text,
	"created_at" bigint NOT NULL,
	"metadata" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trace_scores" (
	"trace_id" text collate "C" NOT NULL,
	"name" text collate "C" NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"scores" bigint NOT NULL,
	"value_hi" bigint NOT NULL,
	"value_lo" bigint NOT NULL,
	"mean" double precision NOT NULL,
	CONSTRAINT "trace_scores_trace_id_name_pk" PRIMARY KEY("trace_id","name")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'secret' NOT NULL;--> statement-breakpoint
CREATE INDEX "annotation_items_done" ON "annotation_items" USING btree ("queue_id","done_at");--> statement-breakpoint
CREATE INDEX "score_hourly_hour" ON "score_hourly" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "scores_trace" ON "scores" USING btree ("trace_id","created_at");--> statement-breakpoint
CREATE INDEX "scores_created" ON "scores" USING btree ("created_at","score_id");--> statement-breakpoint
CREATE INDEX "scores_project_created" ON "scores" USING btree ("project_id","created_at","score_id");--> statement-breakpoint
CREATE INDEX "scores_session" ON "scores" USING btree ("session_id","project_id");--> statement-breakpoint
CREATE INDEX "scores_user" ON "scores" USING btree ("user_id","project_id");--> statement-breakpoint
CREATE INDEX "scores_name_value" ON "scores" USING btree ("name","value","trace_id");--> statement-breakpoint
CREATE INDEX "scores_name_label" ON "scores" USING btree ("name","label","trace_id");--> statement-breakpoint
CREATE INDEX "trace_scores_name_mean" ON "trace_scores" USING btree ("name","mean","trace_id");