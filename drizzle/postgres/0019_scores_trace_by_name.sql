-- A trace's scores indexed by name and value after the trace: a score filter probing a trace, and the count's correction for
-- traces with several scores of a name, read only that trace's scores of that name.
DROP INDEX "scores_trace";--> statement-breakpoint
CREATE INDEX "scores_trace" ON "scores" USING btree ("trace_id","name","value");