CREATE TABLE "call_totals" (
	"project_id" text collate "C" NOT NULL,
	"kind" text NOT NULL,
	"name" text collate "C" NOT NULL,
	"traces" bigint NOT NULL,
	"calls" bigint NOT NULL,
	"failures" bigint NOT NULL,
	"latency_hi" bigint NOT NULL,
	"latency_lo" bigint NOT NULL,
	"timed" bigint NOT NULL,
	CONSTRAINT "call_totals_project_id_kind_name_pk" PRIMARY KEY("project_id","kind","name")
);
--> statement-breakpoint
CREATE TABLE "trace_calls" (
	"trace_id" text collate "C" NOT NULL,
	"project_id" text collate "C" NOT NULL,
	"kind" text NOT NULL,
	"name" text collate "C" NOT NULL,
	"calls" integer NOT NULL,
	"failures" integer NOT NULL,
	"latency_micros" bigint NOT NULL,
	"timed" integer NOT NULL,
	CONSTRAINT "trace_calls_trace_id_kind_name_pk" PRIMARY KEY("trace_id","kind","name")
);
--> statement-breakpoint
CREATE INDEX "trace_calls_name" ON "trace_calls" USING btree ("kind","name","project_id","trace_id");--> statement-breakpoint
-- Traces stored before trace_calls existed: their calls of agents and tools, from their steps, as traceCallRows
-- (src/store/rollups.ts) counts them — a latency in whole microseconds, rounded half up. The rollups (call_totals
-- among them) are then rebuilt from the traces, exactly, by the store when it opens (src/store/rollup-rebuild.ts).
INSERT INTO "trace_calls" ("trace_id", "project_id", "kind", "name", "calls", "failures", "latency_micros", "timed")
  SELECT t."trace_id", t."project_id", s->>'type' AS kind,
    CASE WHEN s->>'type' = 'tool' THEN coalesce(s->>'tool', s->>'name') ELSE s->>'name' END AS call_name,
    count(*), count(*) FILTER (WHERE s->>'status' = 'failed'),
    coalesce(sum(floor((s->>'latency')::float8 * 1000 + 0.5)), 0), count(s->>'latency')
  FROM "traces" t, jsonb_array_elements(t."steps") s
  WHERE s->>'type' IN ('agent', 'tool')
  GROUP BY t."trace_id", t."project_id", kind, call_name;--> statement-breakpoint
INSERT INTO "loupe_meta" ("key", "value") VALUES ('rollups_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
