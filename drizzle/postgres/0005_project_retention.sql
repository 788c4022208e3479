CREATE TABLE "project_retention" (
	"project_id" text collate "C" PRIMARY KEY NOT NULL,
	"retention_days" integer,
	"retention_max_traces" bigint
);
--> statement-breakpoint
ALTER TABLE "project_retention" ADD CONSTRAINT "project_retention_project_id_projects_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "projects"("project_id") ON DELETE no action ON UPDATE no action;