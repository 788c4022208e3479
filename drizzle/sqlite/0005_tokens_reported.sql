ALTER TABLE `rollup_totals` ADD `tokens_unreported` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `tokens_reported` integer DEFAULT true NOT NULL;--> statement-breakpoint
-- Traces stored before tokens_reported existed: a count was reported when it is not 0 or its parts were sent (an
-- explicit 0 sent then cannot be told from nothing, and reads as not reported). The rollups are then rebuilt from
-- the traces, exactly, by the store when it opens (src/store/rollup-rebuild.ts).
UPDATE `traces` SET `tokens_reported` = 0
  WHERE `token_count` = 0 AND `prompt_tokens` IS NULL AND `completion_tokens` IS NULL;--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('rollups_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
