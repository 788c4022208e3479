CREATE TABLE "session_totals" (
	"project_id" text collate "C" NOT NULL,
	"session_id" text collate "C" NOT NULL,
	"user_id" text collate "C",
	"user_at" bigint,
	"traces" bigint NOT NULL,
	"unpriced" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"warnings" bigint NOT NULL,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"latency_hi" bigint DEFAULT 0 NOT NULL,
	"latency_lo" bigint DEFAULT 0 NOT NULL,
	"tokens_hi" bigint DEFAULT 0 NOT NULL,
	"tokens_lo" bigint DEFAULT 0 NOT NULL,
	"cost_hi" bigint DEFAULT 0 NOT NULL,
	"cost_lo" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "session_totals_project_id_session_id_pk" PRIMARY KEY("project_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "user_totals" (
	"project_id" text collate "C" NOT NULL,
	"user_id" text collate "C" NOT NULL,
	"traces" bigint NOT NULL,
	"unpriced" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"warnings" bigint NOT NULL,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"latency_hi" bigint DEFAULT 0 NOT NULL,
	"latency_lo" bigint DEFAULT 0 NOT NULL,
	"tokens_hi" bigint DEFAULT 0 NOT NULL,
	"tokens_lo" bigint DEFAULT 0 NOT NULL,
	"cost_hi" bigint DEFAULT 0 NOT NULL,
	"cost_lo" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_totals_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
CREATE INDEX "session_totals_last" ON "session_totals" USING btree ("last_at","session_id");--> statement-breakpoint
CREATE INDEX "session_totals_project_last" ON "session_totals" USING btree ("project_id","last_at","session_id");--> statement-breakpoint
CREATE INDEX "session_totals_user_last" ON "session_totals" USING btree ("user_id","last_at","session_id");--> statement-breakpoint
CREATE INDEX "user_totals_last" ON "user_totals" USING btree ("last_at","user_id");--> statement-breakpoint
CREATE INDEX "user_totals_project_last" ON "user_totals" USING btree ("project_id","last_at","user_id");--> statement-breakpoint
-- The sessions and users of the traces already stored are counted by the store when it opens (a rollup rebuild).
INSERT INTO "loupe_meta" ("key", "value") VALUES ('rollups_stale', '1') ON CONFLICT ("key") DO UPDATE SET "value" = '1';
