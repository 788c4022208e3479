-- Full-text search (src/search/text.ts): each trace's lower-cased searchable text under the trace's rowid, in an FTS5
-- table with the trigram tokenizer, so that any substring of three characters or more is found through the index,
-- in any language. The store fills it from the traces already stored when it opens (search_stale).
CREATE VIRTUAL TABLE `traces_search` USING fts5(`body`, tokenize = 'trigram case_sensitive 1');--> statement-breakpoint
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('search_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
