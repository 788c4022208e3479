CREATE TABLE "evaluators" (
	"evaluator_id" text collate "C" PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"project_id" text collate "C",
	"filter" jsonb NOT NULL,
	"sample_rate" double precision NOT NULL,
	"score_name" text collate "C" NOT NULL,
	"enabled" boolean NOT NULL,
	"kind" text NOT NULL,
	"config" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
