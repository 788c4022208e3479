// The PostgreSQL store: URL forms, migrations under the advisory lock, the schema's keys and types, the replica
// feed's catch-up after a lost connection, 503 when the database is gone, and reads handed over row by row. (Runs in
// the PostgreSQL run.)
import { readFileSync } from 'node:fs'
import pg from 'pg'
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { isStoreUnavailableError } from '../../src/store/index.js'
import { decodeText, encodeJson, encodeText, parseEncodedJson } from '../../src/store/postgres/nul.js'
import { notifyPayloads, parseNotifyPayload } from '../../src/store/postgres/replica-feed.js'
import { eachRow } from '../../src/store/postgres/statements.js'
import { createPostgresStore, postgresTarget } from '../../src/store/postgres/store.js'
import {
  buildTestApp,
  createProject,
  dropSchema,
  postBatch,
  TEST_DATABASE,
  testSchemaName,
  withSchema,
} from '../helper.js'

const onPostgres = { skip: !TEST_DATABASE && 'PostgreSQL run only' }

t.test('DATABASE_URL: ?schema= picks the schema and is not passed to the driver', async (t) => {
  t.strictSame(postgresTarget('postgres://u@h:5432/db'), {
    connectionString: 'postgres://u@h:5432/db',
    schema: 'public',
  })
  t.strictSame(postgresTarget('postgresql://u@h/db?schema=loupe&sslmode=require'), {
    connectionString: 'postgresql://u@h/db?sslmode=require',
    schema: 'loupe',
  })
  t.throws(() => postgresTarget('postgres://h/db?schema=Bad-Name'), /schema must be a lower-case identifier/)
})

t.test('U+0000 and the escape character survive the round trip through the escape', async (t) => {
  for (const text of ['', 'plain', 'a\u0000b', '\u0000', '\uFDD0', '\uFDD00', '\uFDD0\u0000\uFDD0\uFDD0', 'x\\u0000']) {
    t.strictSame(parseEncodedJson(encodeJson({ text, list: [text] })), { text, list: [text] }, JSON.stringify(text))
    t.notOk(encodeText(text).includes('\u0000'), 'no U+0000 reaches PostgreSQL')
    t.equal(decodeText(encodeText(text)), text)
  }
})

t.test('NOTIFY payloads: runs of seq numbers, split under 8000 bytes, read back exactly', async (t) => {
  t.strictSame(notifyPayloads('o', [1, 2, 3, 7, 9, 10]), ['o:1-3,7,9-10'])
  const scattered = Array.from({ length: 5000 }, (_, i) => 1_000_000_000 + 2 * i)
  const payloads = notifyPayloads('origin-id', scattered)
  t.ok(payloads.length > 1, 'split')
  t.ok(
    payloads.every((p) => Buffer.byteLength(p) < 8000),
    'each under the limit',
  )
  t.strictSame(
    payloads.flatMap((p) => parseNotifyPayload(p)?.seqs ?? []),
    scattered,
  )
  t.equal(parseNotifyPayload('garbage'), null)
})

t.test('connection failures are "store unavailable" (503), other errors are not', async (t) => {
  const err = (code: string, message = 'x') => Object.assign(new Error(message), { code })
  for (const code of ['ECONNREFUSED', 'ECONNRESET', '08006', '08001', '53300', '57P01', '57P03']) {
    t.ok(isStoreUnavailableError(err(code)), code)
  }
  t.ok(isStoreUnavailableError(new Error('Connection terminated unexpectedly')))
  t.ok(isStoreUnavailableError(new Error('timeout exceeded when trying to connect')))
  for (const code of ['23505', '42P01', '22P02']) t.notOk(isStoreUnavailableError(err(code)), code)
})

t.test('replicas starting together migrate once, under the advisory lock', onPostgres, async (t) => {
  const schema = testSchemaName()
  t.teardown(() => dropSchema(TEST_DATABASE!, schema))
  const url = withSchema(TEST_DATABASE!, schema)
  const stores = await Promise.all(Array.from({ length: 4 }, () => createPostgresStore(url, { poolSize: 2 })))
  t.teardown(() => Promise.all(stores.map((s) => s.close())))
  const { rows } = await stores[0]!.pool.query(`select count(*) as n from ${schema}.__drizzle_migrations`)
  const journal = JSON.parse(
    readFileSync(new URL('../../drizzle/postgres/meta/_journal.json', import.meta.url), 'utf8'),
  )
  t.equal(rows[0].n, journal.entries.length, 'each migration recorded once')
  await Promise.all(stores.map((s) => s.ping()))
})

t.test('the schema is ready to be distributed by project', onPostgres, async (t) => {
  const app = await buildTestApp(t)
  const { pool, schema } = app.store as Awaited<ReturnType<typeof createPostgresStore>>
  const keys = await pool.query<{ table: string; columns: string[] }>(
    `select c.relname as table, array_agg(a.attname::text order by array_position(i.indkey, a.attnum)) as columns
     from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
     where i.indisprimary and n.nspname = $1 group by c.relname`,
    [schema],
  )
  const pk = Object.fromEntries(keys.rows.map((r) => [r.table, r.columns]))
  t.strictSame(pk.traces, ['project_id', 'trace_id'])
  for (const table of ['rollup_totals', 'rollup_hourly', 'latency_histogram', 'token_histogram']) {
    t.equal(pk[table]?.[0], 'project_id', `${table}: project_id leads the primary key`)
  }
  const types = await pool.query<{ column_name: string; data_type: string; collation_name: string | null }>(
    `select column_name, data_type, collation_name from information_schema.columns
     where table_schema = $1 and table_name = 'traces'`,
    [schema],
  )
  const type = Object.fromEntries(types.rows.map((r) => [r.column_name, r]))
  for (const column of ['tags', 'metadata', 'steps']) t.equal(type[column]?.data_type, 'jsonb', `${column} is jsonb`)
  t.equal(type.latency?.data_type, 'double precision')
  t.equal(type.created_at?.data_type, 'bigint')
  t.equal(type.trace_id?.collation_name, 'C', 'trace_id sorts byte by byte, as on SQLite')
  const indexes = await pool.query<{ indexname: string }>('select indexname from pg_indexes where schemaname = $1', [
    schema,
  ])
  const names = indexes.rows.map((r) => r.indexname)
  for (const name of [
    'traces_project_created',
    'traces_project_status_created',
    'traces_model_created',
    'traces_environment_created',
    'traces_session_created',
    'traces_user_created',
    'traces_project_latency',
    'traces_project_tokens',
    'traces_project_retried_created',
    'traces_seq',
  ]) {
    t.ok(names.includes(name), `index ${name}`)
  }
})

t.test('a replica whose listening connection drops catches up on what it missed, once', onPostgres, async (t) => {
  const schema = testSchemaName()
  t.teardown(() => dropSchema(TEST_DATABASE!, schema))
  const url = withSchema(TEST_DATABASE!, schema)
  const logs: { msg: string; announced?: number }[] = []
  const log = { info: (o: object, msg: string) => logs.push({ ...o, msg }), warn: () => {} }
  // B waits 1.5 s before reconnecting: long enough for A to store while B is not listening.
  const storeA = await createPostgresStore(url, { poolSize: 2 })
  const storeB = await createPostgresStore(url, { poolSize: 2, log, feedReconnectMs: 1500 })
  const a = await buildTestApp(t, { store: storeA })
  const b = await buildTestApp(t, { store: storeB })
  const onB: Trace[] = []
  b.hub.subscribe((traces) => onB.push(...traces))
  const onA: Trace[] = []
  a.hub.subscribe((traces) => onA.push(...traces))

  const { key } = await createProject(a, 'Feed')
  const first = await postBatch(a, key, [{ prompt: '1' }, { prompt: '2' }])
  t.equal(first.json().accepted, 2)
  const deadline = Date.now() + 5000
  while (onB.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.equal(onB.length, 2, 'live: B hears what A stored')

  const admin = new pg.Client({ connectionString: TEST_DATABASE })
  await admin.connect()
  t.teardown(() => admin.end())
  await admin.query('select pg_terminate_backend($1, 5000)', [storeB.feed()?.pid])
  const missed = await postBatch(
    a,
    key,
    Array.from({ length: 30 }, (_, i) => ({ trace_id: `missed-${String(i).padStart(2, '0')}`, prompt: `${i}` })),
  )
  t.equal(missed.json().accepted, 30)
  while (onB.length < 32 && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 20))
  await new Promise((r) => setTimeout(r, 300))
  t.strictSame(
    onB.slice(2).map((x) => x.trace_id),
    Array.from({ length: 30 }, (_, i) => `missed-${String(i).padStart(2, '0')}`),
    'the missed traces, once each, in the order A stored them',
  )
  t.equal(logs.find((l) => l.msg === 'replica feed: caught up after reconnecting')?.announced, 30, 'by catching up')
  t.equal(onA.length, 32, 'A announced its own traces once (ingest), never again through the feed')

  await postBatch(b, key, [{ trace_id: 'live-again', prompt: 'x' }])
  while (!onA.some((x) => x.trace_id === 'live-again') && Date.now() < deadline + 15_000) {
    await new Promise((r) => setTimeout(r, 20))
  }
  t.ok(
    onA.some((x) => x.trace_id === 'live-again'),
    'and the stream is live again',
  )
  t.equal(onB.filter((x) => x.trace_id === 'live-again').length, 1, 'B announces its own trace once')
})

t.test('GET /traces answers 503 when the database is gone', onPostgres, async (t) => {
  const app = await buildTestApp(t)
  await (app.store as Awaited<ReturnType<typeof createPostgresStore>>).pool.end()
  const res = await app.inject('/traces')
  t.equal(res.statusCode, 503)
  t.equal((await app.inject('/health')).statusCode, 503)
})

t.test(
  'rows handed over one by one: in order, and a failure in one fails the read, not the connection',
  onPostgres,
  async (t) => {
    const client = new pg.Client({ connectionString: TEST_DATABASE })
    await client.connect()
    t.teardown(() => client.end())
    const text = 'select n from generate_series(1, $1::int) as n'
    t.strictSame(
      await eachRow<{ n: number }, number>(client, { text, values: [5] }, (row) => row.n * 10),
      [10, 20, 30, 40, 50],
    )
    let seen = 0
    await t.rejects(
      eachRow<{ n: number }, number>(client, { text, values: [100] }, (row) => {
        seen++
        if (row.n === 3) throw new Error('row 3')
        return row.n
      }),
      /row 3/,
    )
    t.equal(seen, 3, 'no row is handed over after the failure')
    t.strictSame((await client.query('select 1 as one')).rows, [{ one: 1 }], 'the connection goes on')
  },
)
