// /datasets on the store under test: a dataset's life, its items added (one, many, each checked), paged, versioned
// (edits, archives, the dataset as of a time), made from traces (by ids and by filter), exported and imported as JSONL
// and CSV, and a project key's confinement (another project's dataset is unknown).
import t, { type Test } from 'tap'
import { DatasetItemSchema, DatasetSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, postBatch, schemaErrors } from '../helper.js'

const BASE = Date.parse('2026-11-28T08:00:00.000Z')

async function setup(t: Test, adminToken?: string) {
  const clock = { now: BASE }
  const app = await buildTestApp(t, { now: () => clock.now, config: adminToken ? { adminToken } : {} })
  const { key, project_id } = await createProject(app, 'Support', 'development', adminToken)
  return { app, key, project_id, clock }
}

const json = (app: LoupeApp, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: method as 'GET', url, payload: payload as object, headers })

async function createDataset(app: LoupeApp, project_id: string, name = 'regressions') {
  const res = await json(app, 'POST', '/datasets', { name, project_id, description: 'bad answers' })
  if (res.statusCode !== 201) throw new Error(res.body)
  return res.json().dataset_id as string
}

t.test('a dataset is created, listed, read, renamed and deleted; its name is unique in its project', async (t) => {
  const { app, project_id } = await setup(t)
  const created = await json(app, 'POST', '/datasets', { name: 'regressions', project_id, metadata: { a: 1 } })
  t.equal(created.statusCode, 201)
  const dataset = created.json()
  t.same(schemaErrors(DatasetSchema, dataset), [])
  t.match(dataset, { name: 'regressions', project_id, description: '', metadata: { a: 1 }, item_count: 0 })

  const again = await json(app, 'POST', '/datasets', { name: 'regressions', project_id })
  t.equal(again.statusCode, 409)
  t.equal(again.json().code, 'LOUPE_DATASET_EXISTS')
  t.equal((await json(app, 'POST', '/datasets', { name: 'x' })).statusCode, 400, 'no project named in open mode')
  const unknown = await json(app, 'POST', '/datasets', { name: 'x', project_id: 'nope' })
  t.equal(unknown.statusCode, 404)
  const badName = await json(app, 'POST', '/datasets', { name: ' padded ', project_id })
  t.equal(badName.statusCode, 400)
  t.match(badName.json().message, /name/)

  const other = await createDataset(app, project_id, 'other')
  const list = await json(app, 'GET', '/datasets')
  t.same(
    list.json().items.map((d: { name: string }) => d.name),
    ['other', 'regressions'],
    'name ascending',
  )
  t.equal((await json(app, 'GET', '/datasets?name=other')).json().total, 1)

  const id = dataset.dataset_id
  t.equal((await json(app, 'GET', `/datasets/${id}`)).json().name, 'regressions')
  const taken = await json(app, 'PUT', `/datasets/${id}`, { name: 'other' })
  t.equal(taken.statusCode, 409)
  const renamed = await json(app, 'PUT', `/datasets/${id}`, { name: 'renamed', description: 'now' })
  t.equal(renamed.statusCode, 200)
  t.match(renamed.json(), { name: 'renamed', description: 'now', metadata: {} })

  t.equal((await json(app, 'DELETE', `/datasets/${other}`)).statusCode, 204)
  t.equal((await json(app, 'GET', `/datasets/${other}`)).statusCode, 404)
  t.equal((await json(app, 'DELETE', `/datasets/${other}`)).statusCode, 404)
})

t.test('items are added one or many, each checked first; a bad one adds nothing', async (t) => {
  const { app, project_id } = await setup(t)
  const id = await createDataset(app, project_id)
  const one = await json(app, 'POST', `/datasets/${id}/items`, { input: { q: 'hi' }, expected_output: 'hello' })
  t.equal(one.statusCode, 201)
  t.equal(one.json().added, 1)
  const [item] = one.json().items
  t.same(schemaErrors(DatasetItemSchema, item), [])
  t.match(item, { version: 1, status: 'active', input: { q: 'hi' }, expected_output: 'hello', metadata: {} })

  const many = await json(app, 'POST', `/datasets/${id}/items`, {
    items: [{ input: 'a' }, { input: 2, expected_output: null, metadata: { k: 'v' } }],
  })
  t.equal(many.json().added, 2)
  const bad = await json(app, 'POST', `/datasets/${id}/items`, { items: [{ input: 'ok' }, { expected_output: 'x' }] })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /body\/items\/1.*input/)
  const extra = await json(app, 'POST', `/datasets/${id}/items`, { input: 'x', nope: 1 })
  t.equal(extra.statusCode, 400)
  t.match(extra.json().message, /additional properties/)
  const big = await json(app, 'POST', `/datasets/${id}/items`, { input: 'x'.repeat(300 * 1024) })
  t.equal(big.statusCode, 400)
  t.match(big.json().message, /body\/input must be at most 256 KiB/)
  t.equal((await json(app, 'GET', `/datasets/${id}`)).json().item_count, 3, 'only the good requests added items')
  t.equal((await json(app, 'POST', '/datasets/nope/items', { input: 'x' })).statusCode, 404)
})

t.test('items are paged in the order they were added, with an exact total', async (t) => {
  const { app, project_id } = await setup(t)
  const id = await createDataset(app, project_id)
  await json(app, 'POST', `/datasets/${id}/items`, { items: Array.from({ length: 7 }, (_, i) => ({ input: i })) })
  const seen: unknown[] = []
  let cursor: string | null = null
  do {
    const page: { total: number; items: { input: unknown }[]; next_cursor: string | null } = (
      await json(app, 'GET', `/datasets/${id}/items?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
    ).json()
    t.equal(page.total, 7)
    seen.push(...page.items.map((i) => i.input))
    cursor = page.next_cursor
  } while (cursor)
  t.same(seen, [0, 1, 2, 3, 4, 5, 6])
  t.equal((await json(app, 'GET', `/datasets/${id}/items?cursor=garbage`)).statusCode, 400)
  t.equal((await json(app, 'GET', `/datasets/${id}/items?limit=0`)).statusCode, 400)
})

t.test('an edit is a new version; the dataset reads as it was at any time; an archive loses nothing', async (t) => {
  const { app, project_id, clock } = await setup(t)
  const id = await createDataset(app, project_id)
  const created = (await json(app, 'POST', `/datasets/${id}/items`, { input: 'q1', expected_output: 'a1' })).json()
  const itemId = created.items[0].dataset_item_id
  const t1 = new Date(clock.now).toISOString()
  clock.now += 60_000
  await json(app, 'POST', `/datasets/${id}/items`, { input: 'q2' })
  const t2 = new Date(clock.now).toISOString()
  clock.now += 60_000

  const edited = await json(app, 'PUT', `/datasets/${id}/items/${itemId}`, { input: 'q1', expected_output: 'a1 v2' })
  t.equal(edited.statusCode, 200)
  t.match(edited.json(), { version: 2, expected_output: 'a1 v2', created_at: t1 })
  const same = await json(app, 'PUT', `/datasets/${id}/items/${itemId}`, { input: 'q1', expected_output: 'a1 v2' })
  t.equal(same.json().version, 2, 'the same content again makes no version')
  const t3 = new Date(clock.now).toISOString()
  clock.now += 60_000

  const archived = await json(app, 'DELETE', `/datasets/${id}/items/${itemId}`)
  t.equal(archived.statusCode, 200)
  t.match(archived.json(), { version: 3, status: 'archived', expected_output: 'a1 v2' })
  t.equal((await json(app, 'DELETE', `/datasets/${id}/items/${itemId}`)).json().version, 3, 'archived once')

  const inputsAt = async (query: string) =>
    (await json(app, 'GET', `/datasets/${id}/items?${query}`))
      .json()
      .items.map((i: { input: string; version: number }) => `${i.input}@${i.version}`)
  t.same(await inputsAt(''), ['q2@1'], 'now: the archived item is left out')
  t.same(await inputsAt('include_archived=true'), ['q1@3', 'q2@1'])
  t.same(await inputsAt(`as_of=${t1}`), ['q1@1'], 'as of the first item: only it, first version')
  t.same(await inputsAt(`as_of=${t2}`), ['q1@1', 'q2@1'])
  t.same(await inputsAt(`as_of=${t3}`), ['q1@2', 'q2@1'], 'after the edit: the second version')
  t.same(await inputsAt(`as_of=${new Date(BASE - 1).toISOString()}`), [], 'before anything: empty')
  t.equal((await json(app, 'GET', `/datasets/${id}/items?as_of=yesterday`)).statusCode, 400)

  const old = await json(app, 'GET', `/datasets/${id}/items/${itemId}?as_of=${t1}`)
  t.match(old.json(), { version: 1, expected_output: 'a1' })
  const versions = (await json(app, 'GET', `/datasets/${id}/items/${itemId}/versions`)).json()
  t.same(
    versions.items.map((v: { version: number; status: string }) => `${v.version}:${v.status}`),
    ['1:active', '2:active', '3:archived'],
  )
  const restored = await json(app, 'PUT', `/datasets/${id}/items/${itemId}`, { input: 'q1' })
  t.match(restored.json(), { version: 4, status: 'active', expected_output: null })
  t.equal((await json(app, 'GET', `/datasets/${id}`)).json().item_count, 2)
  t.equal((await json(app, 'PUT', `/datasets/${id}/items/nope`, { input: 'x' })).statusCode, 404)
  t.equal((await json(app, 'PUT', `/datasets/${id}/items/${itemId}`, { nope: 1 })).statusCode, 400)
})

t.test('items are made from traces: by ids or by a filter, each trace once', async (t) => {
  const { app, key, project_id } = await setup(t)
  const other = await createProject(app, 'Other', 'development')
  await postBatch(app, key, [
    { trace_id: 'ok-1', prompt: 'q1', response: 'a1', model: 'm', name: 'answer' },
    { trace_id: 'bad-1', prompt: 'q2', response: 'wrong', status: 'failed' },
    { trace_id: 'bad-2', prompt: '', steps: [{ name: 'root', input: { q: 3 }, output: { a: 3 }, status: 'failed' }] },
  ])
  await postBatch(app, other.key, [{ trace_id: 'theirs', prompt: 'x' }])
  const id = await createDataset(app, project_id)

  const byIds = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { trace_ids: ['ok-1'] })
  t.equal(byIds.statusCode, 200)
  t.same(byIds.json(), { added: 1, skipped: 0 })
  const byFilter = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { filter: { status: 'failed' } })
  t.same(byFilter.json(), { added: 2, skipped: 0 })
  const again = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { filter: {} })
  t.same(again.json(), { added: 0, skipped: 3 }, 'a trace already a source is skipped')

  const items = (await json(app, 'GET', `/datasets/${id}/items`)).json().items
  const bySource = Object.fromEntries(items.map((i: { source_trace_id: string }) => [i.source_trace_id, i]))
  t.match(bySource['ok-1'], { input: 'q1', expected_output: 'a1', metadata: { model: 'm', trace_name: 'answer' } })
  t.match(bySource['bad-2'], { input: { q: 3 }, expected_output: { a: 3 } }, 'the root step when no prompt')

  const theirs = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { trace_ids: ['ok-1', 'theirs'] })
  t.equal(theirs.statusCode, 404, 'another project’s trace is unknown')
  t.equal((await json(app, 'POST', `/datasets/${id}/items/from-traces`, {})).statusCode, 400)
  const both = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { trace_ids: ['ok-1'], filter: {} })
  t.equal(both.statusCode, 400)
  const badFilter = await json(app, 'POST', `/datasets/${id}/items/from-traces`, { filter: { status: 'meh' } })
  t.equal(badFilter.statusCode, 400)
  t.match(badFilter.json().message, /filter\/status/)
  const limited = await createDataset(app, project_id, 'limited')
  const few = await json(app, 'POST', `/datasets/${limited}/items/from-traces`, { filter: {}, limit: 2 })
  t.same(few.json(), { added: 2, skipped: 0 })
})

t.test('items export as JSONL and CSV and import back the same', async (t) => {
  const { app, project_id } = await setup(t)
  const id = await createDataset(app, project_id)
  const items = [
    { input: 'plain, with "quotes"\nand a line', expected_output: 'yes', metadata: { k: 1 }, source_trace_id: 'tr-1' },
    { input: { q: 'object' }, expected_output: null, metadata: {}, source_trace_id: null },
  ]
  await json(app, 'POST', `/datasets/${id}/items`, { items })

  const jsonl = await json(app, 'GET', `/datasets/${id}/items/export`)
  t.equal(jsonl.statusCode, 200)
  t.match(jsonl.headers['content-type'], /application\/x-ndjson/)
  t.same(
    jsonl.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    items,
  )
  const csv = await json(app, 'GET', `/datasets/${id}/items/export?format=csv`)
  t.match(csv.headers['content-type'], /text\/csv/)
  t.match(csv.body, /^input,expected_output,metadata,source_trace_id\r\n/)

  for (const [format, body, type] of [
    ['jsonl', jsonl.body, 'application/x-ndjson'],
    ['csv', csv.body, 'text/csv'],
  ] as const) {
    const copy = await createDataset(app, project_id, `copy-${format}`)
    const imported = await app.inject({
      method: 'POST',
      url: `/datasets/${copy}/items/import`,
      headers: { 'content-type': type },
      payload: body,
    })
    t.same(imported.json(), { added: 2 }, format)
    const back = (await json(app, 'GET', `/datasets/${copy}/items`)).json().items
    t.same(
      back.map((i: Record<string, unknown>) => ({
        input: i.input,
        expected_output: i.expected_output,
        metadata: i.metadata,
        source_trace_id: i.source_trace_id,
      })),
      items,
      `${format} round trip`,
    )
  }

  const bad = await app.inject({
    method: 'POST',
    url: `/datasets/${id}/items/import`,
    headers: { 'content-type': 'application/x-ndjson' },
    payload: '{"input":"fine"}\n{"input":\n',
  })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /line 2/)
  const badCsv = await app.inject({
    method: 'POST',
    url: `/datasets/${id}/items/import`,
    headers: { 'content-type': 'text/csv' },
    payload: 'question,answer\r\nq,a\r\n',
  })
  t.equal(badCsv.statusCode, 400)
  t.match(badCsv.json().message, /question/)
  t.equal((await json(app, 'GET', `/datasets/${id}`)).json().item_count, 2, 'a bad import adds nothing')
})

t.test('a project key sees and changes only its own project’s datasets', async (t) => {
  const adminToken = 'admin-token-of-the-datasets-test'
  const { app, key, project_id } = await setup(t, adminToken)
  const admin = { authorization: `Bearer ${adminToken}` }
  const other = await createProject(app, 'Other', 'development', adminToken)
  const mine = await json(app, 'POST', '/datasets', { name: 'mine' }, { authorization: `Bearer ${key}` })
  t.equal(mine.statusCode, 201)
  t.equal(mine.json().project_id, project_id, 'a project key creates in its own project')
  const theirs = (await json(app, 'POST', '/datasets', { name: 'theirs', project_id: other.project_id }, admin)).json()
  const asKey = { authorization: `Bearer ${key}` }
  t.equal((await json(app, 'GET', `/datasets/${theirs.dataset_id}`, undefined, asKey)).statusCode, 404)
  t.equal((await json(app, 'GET', `/datasets/${theirs.dataset_id}/items`, undefined, asKey)).statusCode, 404)
  t.equal((await json(app, 'POST', `/datasets/${theirs.dataset_id}/items`, { input: 'x' }, asKey)).statusCode, 404)
  t.equal((await json(app, 'DELETE', `/datasets/${theirs.dataset_id}`, undefined, asKey)).statusCode, 404)
  const named = await json(app, 'POST', '/datasets', { name: 'x', project_id: other.project_id }, asKey)
  t.equal(named.statusCode, 403)
  t.same(
    (await json(app, 'GET', '/datasets', undefined, asKey)).json().items.map((d: { name: string }) => d.name),
    ['mine'],
  )
  t.equal((await json(app, 'GET', '/datasets', undefined, admin)).json().total, 2)
  t.equal((await json(app, 'GET', '/datasets')).statusCode, 401)
})
