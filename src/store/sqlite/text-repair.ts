// Repairs text that releases before lone UTF-16 surrogates were refused stored as it came. better-sqlite3 writes a
// lone surrogate as the bytes ED A0 80 (no UTF-8 character) and reads them back as U+FFFD: a row read and matched
// again by what was read (a deletion taking a trace out of its user's totals) found nothing, and a deletion, a
// retention pass or a project's deletion failed on it for ever. Once, when a migration asks (`text_stale`), every
// such value becomes the text every reader already saw (each byte that is not UTF-8 a U+FFFD), and a JSON column's
// escaped lone surrogate (`"\ud800"`) a U+FFFD; when a trace changed, its rollups and search index are recounted.
// Repaired rather than matched byte for byte at each deletion: afterwards every value is text, equal to itself when
// read and written again, so every query (a filter, a user's page, a deletion) finds it, not only the deletion.
import { isUtf8 } from 'node:buffer'
import type Database from 'better-sqlite3'
import { is } from 'drizzle-orm'
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { illFormedText, makeWellFormed } from '../../lib/well-formed.js'
import { ROLLUP_TABLES } from '../rollups.js'
import * as tables from './tables.js'

const STALE = 'text_stale'

/** The tables and their text columns, plain and JSON, that may hold a client's text; the rollups are recounted. */
function textColumns(): { table: string; plain: string[]; json: string[] }[] {
  const rollups = new Set<string>(ROLLUP_TABLES)
  return (Object.values(tables) as unknown[])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableConfig(table))
    .filter((config) => !rollups.has(config.name) && config.name !== 'loupe_meta')
    .map((config) => ({
      table: config.name,
      plain: config.columns.filter((c) => c.columnType === 'SQLiteText').map((c) => c.name),
      json: config.columns.filter((c) => c.columnType === 'SQLiteTextJson').map((c) => c.name),
    }))
}

/** Repairs what a migration marked (in one transaction); true when a trace changed (the caller recounts). */
export function repairTextIfStale(db: Database.Database): boolean {
  if (!db.prepare(`select 1 from loupe_meta where key = '${STALE}'`).get()) return false
  // Bytes that are not UTF-8 (a JavaScript string can only write them for a surrogate, always as ED followed by
  // A0–BF: the `instr` test keeps the calls to JavaScript to the few values that hold the byte ED).
  db.function('loupe_not_utf8', { deterministic: true }, (bytes: unknown) =>
    Buffer.isBuffer(bytes) && !isUtf8(bytes) ? 1 : 0,
  )
  // A text argument arrives decoded, each byte that is not UTF-8 as U+FFFD; it is written back as it arrived.
  db.function('loupe_text', { deterministic: true }, (text: unknown) => text as string | null)
  db.function('loupe_json_text', { deterministic: true }, (text: unknown) => {
    if (typeof text !== 'string') return text as null
    const value: unknown = JSON.parse(text)
    return illFormedText(value) === null ? text : JSON.stringify(makeWellFormed(value))
  })
  db.function('loupe_json_ill_formed', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' && illFormedText(JSON.parse(text)) !== null ? 1 : 0,
  )
  return db.transaction(() => {
    let tracesChanged = false
    for (const { table, plain, json } of textColumns()) {
      const bad = [
        ...plain.map((c) => `(instr(cast(\`${c}\` as blob), x'ed') > 0 and loupe_not_utf8(cast(\`${c}\` as blob)))`),
        // JSON.stringify writes a lone surrogate as a lower-case escape, and no other character as `\ud…`.
        ...json.map((c) => `(instr(\`${c}\`, '\\ud') > 0 and loupe_json_ill_formed(\`${c}\`))`),
      ]
      if (bad.length === 0) continue
      const set = [
        ...plain.map((c) => `\`${c}\` = loupe_text(\`${c}\`)`),
        ...json.map((c) => `\`${c}\` = loupe_json_text(\`${c}\`)`),
      ]
      const { changes } = db.prepare(`update \`${table}\` set ${set.join(', ')} where ${bad.join(' or ')}`).run()
      if (table === 'traces' && changes > 0) tracesChanged = true
    }
    if (tracesChanged) {
      for (const key of ['rollups_stale', 'search_stale']) {
        db.prepare(
          `insert into loupe_meta (key, value) values (?, '1') on conflict (key) do update set value = '1'`,
        ).run(key)
      }
    }
    db.prepare(`delete from loupe_meta where key = '${STALE}'`).run()
    return tracesChanged
  })()
}
