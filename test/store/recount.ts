// What a recount gives: the rollups of a fresh store of the kind under test that ingested the same traces, to compare
// a store's figures with after deletions, an upgrade or a repair.
import type { Test } from 'tap'
import type { Trace } from '../../schemas/index.js'
import { unreported } from '../../src/store/reported-cost.js'
import { ROLLUP_TABLES } from '../../src/store/rollups.js'
import type { Store } from '../../src/store/types.js'
import { allRows, createTestStore } from '../helper.js'

export async function everyTrace(store: Store): Promise<Trace[]> {
  const out: Trace[] = []
  for await (const chunk of store.traces.walk({}, 1000, (trace) => trace)) out.push(...chunk)
  return out
}

/** Every rollup row, as plain sorted JSON (numbers as numbers on both stores). */
export async function rollups(store: Store) {
  const rows = await allRows(store)
  return Object.fromEntries(
    ROLLUP_TABLES.map((table) => [
      table,
      (rows[table] ?? []).map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, Number(v) || v]))).sort(),
    ]),
  )
}

/** What a recount from scratch gives: a fresh store that ingested the survivors. */
export async function recount(t: Test, survivors: Trace[]): Promise<Store> {
  const fresh = await createTestStore(t)
  for (let i = 0; i < survivors.length; i += 500) await fresh.traces.insert(survivors.slice(i, i + 500).map(unreported))
  return fresh
}
