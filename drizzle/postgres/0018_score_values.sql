CREATE TABLE "score_values" (
	"name" text collate "C" NOT NULL,
	"value" double precision NOT NULL,
	"label" text collate "C" NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"scores" bigint NOT NULL,
	CONSTRAINT "score_values_name_value_label_project_id_pk" PRIMARY KEY("name","value","label","project_id")
);
--> statement-breakpoint
-- The scores of traces stored so far, counted per (name, value, label, project); from here on their writes keep it.
INSERT INTO "score_values" ("name", "value", "label", "project_id", "scores") SELECT "name", "value", coalesce("label", ''), "project_id", count(*) FROM "scores" WHERE "trace_id" IS NOT NULL GROUP BY "name", "value", coalesce("label", ''), "project_id";
