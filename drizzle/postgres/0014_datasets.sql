CREATE TABLE "dataset_items" (
	"item_id" text collate "C" NOT NULL,
	"version" integer NOT NULL,
	"dataset_id" text collate "C" NOT NULL,
	"status" text NOT NULL,
	"input" jsonb NOT NULL,
	"expected_output" jsonb,
	"metadata" jsonb NOT NULL,
	"source_trace_id" text collate "C",
	"created_at" bigint NOT NULL,
	"valid_from" bigint NOT NULL,
	"valid_to" bigint,
	CONSTRAINT "dataset_items_item_id_version_pk" PRIMARY KEY("item_id","version")
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"dataset_id" text collate "C" PRIMARY KEY NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"name" text collate "C" NOT NULL,
	"description" text NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "experiments" (
	"experiment_id" text collate "C" PRIMARY KEY NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"dataset_id" text collate "C" NOT NULL,
	"name" text NOT NULL,
	"as_of" bigint NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "experiment_id" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "dataset_item_id" text;--> statement-breakpoint
CREATE INDEX "dataset_items_dataset" ON "dataset_items" USING btree ("dataset_id","item_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "datasets_project_name" ON "datasets" USING btree ("project_id","name");--> statement-breakpoint
CREATE INDEX "experiments_dataset" ON "experiments" USING btree ("dataset_id","created_at");--> statement-breakpoint
CREATE INDEX "experiments_project" ON "experiments" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "traces_experiment" ON "traces" USING btree ("experiment_id","dataset_item_id") WHERE experiment_id is not null;