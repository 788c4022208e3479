// Scores in the views of the data: GET /traces filtered and ordered by a score, the light list's score summaries,
// and every route that takes the list's filters (export, DELETE /traces), on the store under test.
import t, { type Test } from 'tap'
import { ListTraceSummariesResponse } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { exportTraces } from '../../src/services/export.js'
import { buildTestApp, createProject, postTrace, schemaErrors } from '../helper.js'

/** Five traces of one project (t1 oldest … t5 newest) and their scores; t5 has none. */
async function setup(t: Test) {
  const app = await buildTestApp(t)
  const { key, project_id } = await createProject(app, 'Views')
  for (let i = 1; i <= 5; i++) {
    const created_at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()
    await postTrace(app, key, { trace_id: `t${i}`, prompt: `p${i}`, created_at, session_id: 's-1', user_id: 'u-1' })
  }
  const scores = [
    { trace_id: 't1', name: 'helpfulness', value: 0.2 },
    { trace_id: 't1', name: 'helpfulness', value: 0.9 },
    { trace_id: 't2', name: 'helpfulness', value: 0.5 },
    { trace_id: 't3', name: 'helpfulness', value: 0.9 },
    { trace_id: 't4', name: 'helpfulness', value: 0.55 },
    { trace_id: 't1', name: 'thumbs', value: true },
    { trace_id: 't2', name: 'thumbs', value: false },
    { trace_id: 't3', name: 'tone', value: 'friendly' },
    { trace_id: 't4', name: 'tone', value: 'rude' },
  ]
  const batch = await app.inject({ method: 'POST', url: '/scores/batch', payload: { scores } })
  t.equal(batch.json().accepted, scores.length, batch.body)
  return { app, key, project_id }
}

const list = async (app: LoupeApp, query: string) => {
  const res = await app.inject({ method: 'GET', url: `/traces?${query}` })
  return { status: res.statusCode, body: res.json() }
}
const ids = (body: { items: { trace_id: string }[] }) => body.items.map((i) => i.trace_id)

t.test(
  'score_name with min_score/max_score, or score_label: a trace matches when one of its scores does',
  async (t) => {
    const { app } = await setup(t)
    const cases: [string, string[]][] = [
      ['score_name=helpfulness', ['t4', 't3', 't2', 't1']],
      ['score_name=helpfulness&max_score=0.5', ['t2', 't1']],
      ['score_name=helpfulness&min_score=0.6', ['t3', 't1']],
      ['score_name=helpfulness&min_score=0.5&max_score=0.55', ['t4', 't2']],
      ['score_name=helpfulness&min_score=0.95', []],
      ['score_name=thumbs&min_score=1', ['t1']],
      ['score_name=thumbs&max_score=0', ['t2']],
      ['score_name=thumbs&score_label=false', ['t2']],
      ['score_name=tone&score_label=friendly', ['t3']],
      ['score_name=tone&score_label=friendly&fields=summary', ['t3']],
      ['score_name=nothing', []],
      ['score_name=helpfulness&max_score=0.5&q=p1', ['t1']],
      ['score_name=helpfulness&max_score=0.6&sort=latency&order=asc', ['t1', 't2', 't4']],
      ['score_name=helpfulness&status=success&limit=1', ['t4']],
    ]
    for (const [query, want] of cases) {
      const { status, body } = await list(app, query)
      t.equal(status, 200, query)
      t.same(ids(body), want, query)
      if (query.includes('limit')) continue
      t.equal(body.total, want.length, `${query}: total`)
      // A page of one is served by testing each trace walked, a whole page by collecting the matches: the same.
      const first = await list(app, `${query}&limit=1`)
      t.same(ids(first.body), want.slice(0, 1), `${query}&limit=1`)
      t.equal(first.body.total, want.length, `${query}&limit=1: total`)
    }
    t.equal((await list(app, 'score_name=helpfulness&status=success&limit=1')).body.total, 4, 'total beyond the page')
  },
)

t.test(
  'a trace counts once however many of its scores (and its steps’) match; a session’s scores count none',
  async (t) => {
    const app = await buildTestApp(t)
    const { key } = await createProject(app, 'Counts')
    for (let i = 1; i <= 4; i++) {
      const steps = [{ name: 'a', type: 'llm' }]
      await postTrace(app, key, {
        trace_id: `c${i}`,
        prompt: 'p',
        session_id: 's-c',
        steps,
        created_at: 1795268700 + i,
      })
    }
    const scores = [
      { trace_id: 'c1', name: 'q', value: 0.1, score_id: 'c1-a' },
      { trace_id: 'c1', name: 'q', value: 0.2, score_id: 'c1-b' },
      { trace_id: 'c1', name: 'q', value: 0.9, score_id: 'c1-c', step_index: 0 },
      { trace_id: 'c2', name: 'q', value: 0.3, step_index: 0 },
      { trace_id: 'c3', name: 'q', value: 0.8 },
      { trace_id: 'c3', name: 'q', value: 0.1, score_id: 'c3-b' },
      { trace_id: 'c3', name: 'r', value: 'x' },
      { trace_id: 'c4', name: 'r', value: 'x' },
      { session_id: 's-c', name: 'q', value: 0.1 },
      { session_id: 's-c', name: 'r', value: 'x' },
    ]
    const batch = await app.inject({ method: 'POST', url: '/scores/batch', payload: { scores } })
    t.equal(batch.json().accepted, scores.length, batch.body)
    const counts = async (want: Record<string, number>) => {
      for (const [query, n] of Object.entries(want)) {
        const { body } = await list(app, query)
        t.equal(body.total, n, `${query}: total`)
        t.equal(body.items.length, n, `${query}: as many listed`)
      }
    }
    await counts({
      'score_name=q': 3,
      'score_name=q&max_score=0.25': 2,
      'score_name=q&min_score=0.15&max_score=0.25': 1,
      'score_name=q&min_score=0.85': 1,
      'score_name=q&sort=score:q': 3,
      'sort=score:q': 3,
      'score_name=r&score_label=x': 2,
      'score_name=r&score_label=y': 0,
    })
    // c1 and c3 down to one score of q within 0.25 each, then none: the traces with several scores shrink.
    for (const id of ['c1-a', 'c3-b']) {
      t.equal((await app.inject({ method: 'DELETE', url: `/scores/${id}` })).statusCode, 204)
    }
    await counts({ 'score_name=q&max_score=0.25': 1, 'score_name=q': 3 })
    t.equal((await app.inject({ method: 'DELETE', url: '/scores/c1-b' })).statusCode, 204)
    await counts({ 'score_name=q&max_score=0.25': 0, 'score_name=q&min_score=0.85': 1, 'score_name=q': 3 })
  },
)

t.test(
  'the count of a score filter equals a recount after every write and delete: values repeated, bounds at a value, per project',
  async (t) => {
    const app = await buildTestApp(t)
    const projects = [await createProject(app, 'Edges A'), await createProject(app, 'Edges B')]
    type Held = { score_id: string; trace_id: string; project_id: string; value: number; label: string | null }
    const traces = new Map<string, string>()
    for (let i = 0; i < 8; i++) {
      const { key, project_id } = projects[i % 2]!
      await postTrace(app, key, { trace_id: `e${i}`, prompt: 'p', created_at: 1795268700 + i, session_id: 's-e' })
      traces.set(`e${i}`, project_id)
    }
    const held: Held[] = []
    let made = 0
    /** Scores of q (values from a few, repeated) and of a categorical r, each trace's several times over. */
    const add = async (rows: [string, number | string][]) => {
      const scores = rows.map(([trace_id, value]) => ({
        trace_id,
        name: typeof value === 'string' ? 'r' : 'q',
        value,
        score_id: `m${made++}`,
      }))
      const res = await app.inject({ method: 'POST', url: '/scores/batch', payload: { scores } })
      t.equal(res.json().accepted, scores.length, res.body)
      for (const s of scores) {
        held.push({
          score_id: s.score_id,
          trace_id: s.trace_id,
          project_id: traces.get(s.trace_id)!,
          value: typeof s.value === 'string' ? 0 : s.value,
          label: typeof s.value === 'string' ? s.value : null,
        })
      }
    }
    const queries: [string, (s: Held) => boolean][] = [
      ['score_name=q', (s) => s.label === null],
      ['score_name=q&max_score=0', (s) => s.label === null && s.value <= 0],
      ['score_name=q&min_score=0.5', (s) => s.label === null && s.value >= 0.5],
      ['score_name=q&max_score=0.5', (s) => s.label === null && s.value <= 0.5],
      ['score_name=q&min_score=0.5&max_score=0.5', (s) => s.label === null && s.value === 0.5],
      ['score_name=q&min_score=0.25&max_score=0.75', (s) => s.label === null && s.value >= 0.25 && s.value <= 0.75],
      ['score_name=q&min_score=1', (s) => s.label === null && s.value >= 1],
      ['score_name=q&min_score=-0.5&max_score=-0.1', (s) => s.label === null && s.value >= -0.5 && s.value <= -0.1],
      ['sort=score:q', (s) => s.label === null],
      ['score_name=q&max_score=0.5&sort=score:q', (s) => s.label === null && s.value <= 0.5],
      ['score_name=r&score_label=x', (s) => s.label === 'x'],
      ['score_name=r', (s) => s.label !== null],
    ]
    const recounted = async (when: string) => {
      for (const project of [undefined, ...projects.map((p) => p.project_id)]) {
        for (const [query, matches] of queries) {
          const want = new Set(
            held
              .filter((s) => (project === undefined || s.project_id === project) && matches(s))
              .map((s) => s.trace_id),
          )
          const url = `${query}&limit=100${project === undefined ? '' : `&project_id=${project}`}`
          const { status, body } = await list(app, url)
          t.equal(status, 200, url)
          t.equal(body.total, want.size, `${when}: ${url}: total equals a recount`)
          t.same(ids(body).sort(), [...want].sort(), `${when}: ${url}: the traces listed`)
        }
      }
    }
    await add([
      ['e0', 0.5],
      ['e0', 0.5],
      ['e0', 1],
      ['e1', 0],
      ['e1', 0.5],
      ['e2', 0.25],
      ['e3', -0.25],
      ['e3', 0.75],
      ['e4', 'x'],
      ['e4', 'x'],
      ['e5', 'y'],
      ['e6', 0.5],
    ])
    await recounted('first scores')
    await add([
      ['e2', 0.25],
      ['e5', 0.5],
      ['e5', 0],
      ['e7', 1],
      ['e4', 0.5],
      ['e6', 'x'],
    ])
    await recounted('more scores')
    // Take away scores one by one (a trace's repeated value, its last score of a name), then a whole trace.
    for (const score_id of ['m0', 'm4', 'm14', 'm1', 'm8', 'm12']) {
      t.equal((await app.inject({ method: 'DELETE', url: `/scores/${score_id}` })).statusCode, 204, score_id)
      held.splice(
        held.findIndex((s) => s.score_id === score_id),
        1,
      )
      await recounted(`${score_id} deleted`)
    }
    t.equal((await app.inject({ method: 'DELETE', url: '/traces/e5' })).statusCode, 204)
    for (let i = held.length - 1; i >= 0; i--) if (held[i]!.trace_id === 'e5') held.splice(i, 1)
    await recounted('e5 deleted')
  },
)

t.test('a score bound without score_name is a 400 naming the field', async (t) => {
  const { app } = await setup(t)
  for (const field of ['min_score=0', 'max_score=1', 'score_label=x']) {
    const { status, body } = await list(app, field)
    t.equal(status, 400, field)
    t.match(body.message, field.split('=')[0], field)
    t.match(body.message, 'score_name')
  }
  for (const query of ['score_name=', 'score_name=x&min_score=abc', 'sort=score:', 'sort=score: x', 'sort=scores']) {
    t.equal((await list(app, query)).status, 400, query)
  }
})

t.test('the filters hold for export and DELETE /traces', async (t) => {
  const { app } = await setup(t)
  const exported = await app.inject({ method: 'GET', url: '/traces/export?score_name=helpfulness&max_score=0.5' })
  t.equal(exported.statusCode, 200)
  const lines = exported.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.same(
    lines.map((l) => l.trace_id),
    ['t2', 't1'],
  )
  const bad = await app.inject({ method: 'DELETE', url: '/traces?min_score=0' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, 'min_score')
  const deleted = await app.inject({ method: 'DELETE', url: '/traces?score_name=tone&score_label=rude' })
  t.same(deleted.json(), { deleted: 1 })
  t.same(ids((await list(app, 'score_name=helpfulness')).body), ['t3', 't2', 't1'], 't4 and its scores are gone')
  t.same(ids((await list(app, '')).body), ['t5', 't3', 't2', 't1'])
  t.equal((await list(app, 'score_name=tone')).body.total, 1)
})

t.test(
  'sort=score:<name>: the traces with that score by their mean of it, ties by trace_id, paged by cursor',
  async (t) => {
    const { app } = await setup(t)
    // Means: t1 0.55, t2 0.5, t3 0.9, t4 0.55.
    const asc = await list(app, 'sort=score:helpfulness&order=asc')
    t.equal(asc.status, 200)
    t.same(ids(asc.body), ['t2', 't1', 't4', 't3'])
    t.equal(asc.body.total, 4, 'a trace without the score is not listed')
    const desc = await list(app, 'sort=score:helpfulness&order=desc')
    t.same(ids(desc.body), ['t3', 't4', 't1', 't2'])
    t.same(ids((await list(app, 'sort=score:helpfulness&order=asc&offset=1&limit=2')).body), ['t1', 't4'])
    t.same(ids((await list(app, 'sort=score:helpfulness&score_name=thumbs')).body), ['t1', 't2'], 'with a filter')
    t.same(ids((await list(app, 'sort=score:nothing')).body), [])

    for (const [order, want] of [
      ['asc', ['t2', 't1', 't4', 't3']],
      ['desc', ['t3', 't4', 't1', 't2']],
    ] as const) {
      for (const fields of ['full', 'summary']) {
        const seen: string[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const query: string = `sort=score:helpfulness&order=${order}&limit=1&fields=${fields}${cursor ? `&cursor=${cursor}` : ''}`
          const { status, body } = await list(app, query)
          t.equal(status, 200, query)
          t.equal(body.total, 4)
          seen.push(...ids(body))
          cursor = body.next_cursor
          pages++
        } while (cursor && pages < 10)
        t.same(seen, want, `cursor paging ${order} ${fields}`)
      }
    }
    const { body } = await list(app, 'sort=score:helpfulness&limit=1')
    const other = await list(app, `sort=score:thumbs&limit=1&cursor=${body.next_cursor}`)
    t.equal(other.status, 400, 'a cursor of another score order is refused')
    t.match(other.body.message, 'cursor')
  },
)

t.test('the light list carries each trace’s scores in short', async (t) => {
  const { app } = await setup(t)
  const { body } = await list(app, 'fields=summary')
  t.same(schemaErrors(ListTraceSummariesResponse, body), [])
  const byId = Object.fromEntries(body.items.map((i: { trace_id: string; scores: unknown }) => [i.trace_id, i.scores]))
  t.same(byId, {
    t1: { helpfulness: { count: 2, mean: 0.55 }, thumbs: { count: 1, mean: 1 } },
    t2: { helpfulness: { count: 1, mean: 0.5 }, thumbs: { count: 1, mean: 0 } },
    t3: { helpfulness: { count: 1, mean: 0.9 }, tone: { count: 1, mean: 0 } },
    t4: { helpfulness: { count: 1, mean: 0.55 }, tone: { count: 1, mean: 0 } },
    t5: {},
  })
  const scoreId = (await app.inject({ method: 'GET', url: '/scores?trace_id=t2&name=thumbs' })).json().items[0].score_id
  await app.inject({ method: 'DELETE', url: `/scores/${scoreId}` })
  const after = (await list(app, 'fields=summary&score_name=helpfulness&max_score=0.5')).body
  t.same(after.items.find((i: { trace_id: string }) => i.trace_id === 't2').scores, {
    helpfulness: { count: 1, mean: 0.5 },
  })
})

t.test('sessions and users carry their score means per name, exact after a delete', async (t) => {
  const { app, key, project_id } = await setup(t)
  const own = await app.inject({
    method: 'POST',
    url: '/scores',
    payload: { session_id: 's-1', project_id, name: 'helpfulness', value: 0.1 },
  })
  t.equal(own.statusCode, 201, own.body)
  // helpfulness: 0.2, 0.9, 0.5, 0.9, 0.55 on its traces and 0.1 on the session itself.
  const want = {
    helpfulness: { count: 6, mean: 0.525 },
    thumbs: { count: 2, mean: 0.5 },
    tone: { count: 2, mean: 0 },
  }
  const sessions = (await app.inject('/sessions')).json()
  t.same(sessions.items[0].scores, want, 'GET /sessions')
  const session = (await app.inject('/sessions/s-1')).json()
  t.same(session.session.scores, want, 'GET /sessions/{id}')
  const users = (await app.inject('/users')).json()
  t.same(users.items[0].scores, want, 'GET /users: its sessions’ scores too')
  const user = (await app.inject('/users/u-1')).json()
  t.same(user.user.scores, users.items[0].scores, 'GET /users/{id}')
  t.same(user.sessions[0].scores, want, 'a user’s sessions')

  await app.inject({ method: 'DELETE', url: '/traces/t2' })
  const after = (await app.inject('/sessions/s-1')).json().session.scores
  t.same(after, { helpfulness: { count: 5, mean: 0.53 }, thumbs: { count: 1, mean: 1 }, tone: { count: 2, mean: 0 } })
  await postTrace(app, key, { prompt: 'x', session_id: 'quiet' })
  const quiet = (await app.inject('/sessions/quiet')).json()
  t.same(quiet.session.scores, {}, 'a session without scores: an empty object')
})

t.test('export carries the scores: NDJSON each trace’s scores as its read by id, CSV their summary', async (t) => {
  const { app } = await setup(t)
  const ndjson = await app.inject('/traces/export')
  const lines = ndjson.body.trim().split('\n')
  t.equal(lines.length, 5)
  for (const line of lines) {
    const id = JSON.parse(line).trace_id
    t.equal(line, (await app.inject(`/traces/${id}`)).body, `${id}: the line is the trace read by its id`)
  }
  t.equal(JSON.parse(lines[4]!).scores.length, 3, 't1 has three scores')
  t.same(JSON.parse(lines[0]!).scores, [], 't5 has none')
  // In chunks of two traces, each chunk's scores read for that chunk: the same bytes.
  for (const format of ['ndjson', 'csv'] as const) {
    const chunks: Buffer[] = []
    for await (const bytes of exportTraces(app.store, {}, format, 2)) chunks.push(bytes)
    const whole = await app.inject(`/traces/export?format=${format}`)
    t.equal(Buffer.concat(chunks).toString(), whole.body, `${format} in chunks of 2`)
  }
  const csv = (await app.inject('/traces/export?format=csv')).body.trim().split('\r\n')
  t.match(csv[0], /,step_count,scores$/)
  t.match(csv[5], /,0,"\{""helpfulness"":\{""count"":2,""mean"":0\.55\},""thumbs"":\{""count"":1,""mean"":1\}\}"$/)
  t.match(csv[1], /,0,\{\}$/, 'a trace without scores: {}')
})

t.test('/metrics counts the scores stored by name and source', async (t) => {
  const { app } = await setup(t)
  await app.inject({
    method: 'POST',
    url: '/scores',
    payload: { trace_id: 't5', name: 'thumbs', value: true, source: 'feedback' },
  })
  const again = await app.inject({ method: 'POST', url: '/scores/batch', payload: { scores: [] } })
  t.equal(again.statusCode, 400, 'an empty batch stores nothing')
  const text = (await app.inject('/metrics')).body
  const count = (name: string, source: string) =>
    Number(
      text.match(new RegExp(`^loupe_scores_recorded_total\\{name="${name}",source="${source}"\\} (\\d+)$`, 'm'))?.[1],
    )
  t.equal(count('helpfulness', 'api'), 5)
  t.equal(count('thumbs', 'api'), 2)
  t.equal(count('thumbs', 'feedback'), 1)
  t.equal(count('tone', 'api'), 2)
})
