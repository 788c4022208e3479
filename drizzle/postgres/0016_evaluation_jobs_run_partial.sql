DROP INDEX "evaluation_jobs_run";--> statement-breakpoint
CREATE INDEX "evaluation_jobs_run" ON "evaluation_jobs" USING btree ("run_id") WHERE run_id is not null;