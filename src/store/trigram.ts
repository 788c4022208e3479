// What the trigram indexes (SQLite's FTS5 trigram tokenizer, PostgreSQL's pg_trgm) can find by themselves.

/** Shortest word the trigram indexes can find by themselves; shorter ones are checked on the text. */
export const TRIGRAM = 3

/** A word's length in characters (not UTF-16 units), as the trigram tokenizers count it. */
export const charCount = (word: string) => [...word].length
