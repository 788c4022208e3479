-- The transaction that stored each trace, for the search totals kept between requests (src/store/search-counts.ts).
-- The default is set apart from the column: a volatile default given with ADD COLUMN would rewrite the whole table,
-- while traces stored before stay null here (stored by transactions long finished, which is all a count needs).
ALTER TABLE "traces" ADD COLUMN "xid" xid8;--> statement-breakpoint
ALTER TABLE "traces" ALTER COLUMN "xid" SET DEFAULT pg_current_xact_id();--> statement-breakpoint
CREATE INDEX "traces_xid" ON "traces" USING btree ("xid");--> statement-breakpoint
-- Statistics of the new column now (all null), not at the next automatic analysis: without them the planner takes
-- "xid at or past a recent one" for a third of the table and scans it all instead of reading the few recent traces.
ANALYZE "traces" ("xid");
