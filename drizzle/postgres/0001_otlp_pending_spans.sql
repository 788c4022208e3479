CREATE TABLE "otlp_pending_spans" (
	"project_id" text collate "C" NOT NULL,
	"trace_id" text collate "C" NOT NULL,
	"span_id" text collate "C" NOT NULL,
	"environment" text NOT NULL,
	"is_root" boolean NOT NULL,
	"received_at" bigint NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "otlp_pending_spans_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"span" jsonb NOT NULL,
	CONSTRAINT "otlp_pending_spans_project_id_trace_id_span_id_pk" PRIMARY KEY("project_id","trace_id","span_id")
);
--> statement-breakpoint
CREATE INDEX "otlp_pending_spans_trace" ON "otlp_pending_spans" USING btree ("trace_id","seq");