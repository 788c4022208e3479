-- Text stored before lone UTF-16 surrogates were refused is held as bytes that are not UTF-8 (a surrogate as ED A0 80),
-- which no query can match again: a deletion could not find the rollup rows of such a user or session. The store
-- repairs every such value when it opens (src/store/sqlite/text-repair.ts), then recounts the rollups.
INSERT INTO `loupe_meta` (`key`, `value`) VALUES ('text_stale', '1') ON CONFLICT (`key`) DO UPDATE SET `value` = '1';
