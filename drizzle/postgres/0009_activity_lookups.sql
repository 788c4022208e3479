CREATE TABLE "activity_counts" (
	"project_id" text collate "C" PRIMARY KEY NOT NULL,
	"sessions" bigint NOT NULL,
	"users" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "session_totals_user_last";--> statement-breakpoint
CREATE INDEX "session_totals_session_last" ON "session_totals" USING btree ("session_id","last_at","project_id");--> statement-breakpoint
CREATE INDEX "user_totals_user_last" ON "user_totals" USING btree ("user_id","last_at","project_id");--> statement-breakpoint
CREATE INDEX "session_totals_user_last" ON "session_totals" USING btree ("user_id","last_at","session_id","project_id");--> statement-breakpoint
-- The sessions and users each project has so far; from here on the store keeps the counts with their rollup rows.
INSERT INTO "activity_counts" ("project_id", "sessions", "users") SELECT "project_id", sum("sessions"), sum("users") FROM (SELECT "project_id", count(*) AS "sessions", 0 AS "users" FROM "session_totals" GROUP BY "project_id" UNION ALL SELECT "project_id", 0, count(*) FROM "user_totals" GROUP BY "project_id") AS "c" GROUP BY "project_id";
