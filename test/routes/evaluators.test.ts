// GET/POST /evaluators and GET/PUT/DELETE /evaluators/{evaluator_id} on the store under test: rules kept as sent
// (their defaults filled in), checked as they will run, confined for a project key.
import t from 'tap'
import { EvaluatorSchema } from '../../schemas/index.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'

const ADMIN = 'admin-token-0123456789abcdef'
const rule = {
  name: 'answers-are-json',
  score_name: 'json_valid',
  kind: 'json',
  config: { field: 'response' },
  filter: { model: 'gpt-4o-mini' },
}

t.test('create, read, replace and delete a rule', async (t) => {
  const app = await buildTestApp(t)
  const { project_id } = await createProject(app, 'Eval')
  const created = await app.inject({ method: 'POST', url: '/evaluators', payload: { ...rule, project_id } })
  t.equal(created.statusCode, 201, created.body)
  const body = created.json()
  t.same(schemaErrors(EvaluatorSchema, body), [])
  t.match(body, { ...rule, project_id, sample_rate: 1, enabled: true })
  const id = body.evaluator_id as string
  t.same((await app.inject(`/evaluators/${id}`)).json(), body)
  t.same((await app.inject('/evaluators')).json(), { total: 1, items: [body] })

  const replaced = await app.inject({
    method: 'PUT',
    url: `/evaluators/${id}`,
    payload: { ...rule, enabled: false, sample_rate: 0.25, kind: 'length', config: { field: 'response', max: 500 } },
  })
  t.equal(replaced.statusCode, 200, replaced.body)
  t.match(replaced.json(), { evaluator_id: id, enabled: false, sample_rate: 0.25, kind: 'length', project_id: null })
  t.equal(replaced.json().created_at, body.created_at, 'created_at is kept')
  const fresh = await app.inject({ method: 'PUT', url: '/evaluators/my-rule', payload: rule })
  t.equal(fresh.statusCode, 201)
  t.equal((await app.inject({ method: 'DELETE', url: `/evaluators/${id}` })).statusCode, 204)
  t.equal((await app.inject({ method: 'DELETE', url: `/evaluators/${id}` })).statusCode, 404)
  t.equal((await app.inject(`/evaluators/${id}`)).statusCode, 404)
  t.same(
    (await app.inject('/evaluators')).json().items.map((e: { evaluator_id: string }) => e.evaluator_id),
    ['my-rule'],
  )
})

t.test(
  'a rule is checked as it will run: 400 naming the field, 404 for an unknown project; nothing stored',
  async (t) => {
    const app = await buildTestApp(t)
    const post = (payload: unknown) => app.inject({ method: 'POST', url: '/evaluators', payload: payload as object })
    const cases: [unknown, number, RegExp][] = [
      [
        { ...rule, kind: 'regex', config: { field: 'response', pattern: '[', expect: 'match' } },
        400,
        /config\/pattern/,
      ],
      [{ ...rule, kind: 'json_schema', config: { field: 'response', schema: { type: 12 } } }, 400, /config\/schema/],
      [{ ...rule, config: { field: 'body' } }, 400, /body\/config\/field/],
      [{ ...rule, filter: { status: 'meh' } }, 400, /body\/filter\/status/],
      [{ ...rule, filter: { nope: 1 } }, 400, /body\/filter\/nope is not a filter/],
      [{ ...rule, sample_rate: 2 }, 400, /sample_rate/],
      [{ ...rule, kind: 'llm_judge', config: {} }, 400, /config must have required property 'template'/],
      [{ ...rule, name: 'a\u0000b' }, 400, /U\+0000/],
      [{ ...rule, project_id: 'none-such' }, 404, /none-such/],
    ]
    for (const [payload, status, message] of cases) {
      const res = await post(payload)
      t.equal(res.statusCode, status, JSON.stringify(payload))
      t.match(res.json().message, message)
    }
    t.equal((await app.inject('/evaluators')).json().total, 0)
  },
)

t.test('protected mode: the admin manages rules; a project key reads its own and every project’s only', async (t) => {
  const app = await buildTestApp(t, { config: { adminToken: ADMIN } })
  const admin = { authorization: `Bearer ${ADMIN}` }
  const a = await createProject(app, 'Alpha', 'production', ADMIN)
  const b = await createProject(app, 'Beta', 'production', ADMIN)
  const mine = (
    await app.inject({
      method: 'POST',
      url: '/evaluators',
      headers: admin,
      payload: { ...rule, project_id: a.project_id },
    })
  ).json()
  const theirs = (
    await app.inject({
      method: 'POST',
      url: '/evaluators',
      headers: admin,
      payload: { ...rule, project_id: b.project_id },
    })
  ).json()
  const global = (await app.inject({ method: 'POST', url: '/evaluators', headers: admin, payload: rule })).json()
  const key = { authorization: `Bearer ${a.key}` }
  t.same(
    (await app.inject({ url: '/evaluators', headers: key }))
      .json()
      .items.map((e: { evaluator_id: string }) => e.evaluator_id),
    [mine.evaluator_id, global.evaluator_id],
  )
  t.equal((await app.inject({ url: `/evaluators/${theirs.evaluator_id}`, headers: key })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/evaluators', headers: key, payload: rule })).statusCode, 403)
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/evaluators/${mine.evaluator_id}`, headers: key })).statusCode,
    403,
  )
  t.equal((await app.inject({ url: '/evaluators' })).statusCode, 401)
})
