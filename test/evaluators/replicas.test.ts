// Two replicas on one PostgreSQL database share one queue of evaluation jobs: every job is done by exactly one of
// them (the judge is asked once per trace, each trace gets one score), both take a share, and a job held by a replica
// that died is taken over once its lease runs out. (PostgreSQL run only: SQLite is one process by design.)
import t from 'tap'
import { buildTestApp, createProject, createSharedStores, postBatch, TEST_DATABASE, waitFor } from '../helper.js'
import { startFakeJudge } from './fake-judge.js'

t.test(
  'replicas share the jobs without doing one twice, and take over a dead replica’s',
  { skip: !TEST_DATABASE && 'PostgreSQL run only' },
  async (t) => {
    const judge = await startFakeJudge(t)
    judge.fallback = { answer: '{"score": 1, "reasoning": "good"}', delayMs: 30 }
    const [storeA, storeB] = await createSharedStores(t)
    const config = {
      judgeBaseUrl: judge.url,
      judgeModel: 'gpt-4o-mini',
      evaluatorConcurrency: 3,
      evaluatorJudgePerMinute: 100_000,
    }
    const a = await buildTestApp(t, { store: storeA, config })
    const b = await buildTestApp(t, { store: storeB, config })
    const { key } = await createProject(a, 'Shared')
    const rule = await a.inject({
      method: 'POST',
      url: '/evaluators',
      payload: { name: 'helpful', score_name: 'helpfulness', kind: 'llm_judge', config: { template: '{{response}}' } },
    })
    const ruleId = rule.json().evaluator_id as string
    const ids = Array.from({ length: 90 }, (_, i) => `r-${i}`)
    // Half through each replica: each pokes its own worker; the other finds the jobs at its next look.
    await postBatch(
      a,
      key,
      ids.slice(0, 45).map((id) => ({ trace_id: id, prompt: 'q', response: 'a' })),
    )
    await postBatch(
      b,
      key,
      ids.slice(45).map((id) => ({ trace_id: id, prompt: 'q', response: 'a' })),
    )
    const stats = async () => (await b.inject(`/evaluators/${ruleId}`)).json().stats
    await waitFor(async () => (await stats()).evaluated === 90, 60_000, 'every job done')
    t.match(await stats(), { evaluated: 90, errors: 0, pending: 0 })
    t.equal(judge.requests.length, 90, 'the judge was asked once per trace')
    const scores = (await a.inject('/scores?name=helpfulness&limit=500')).json()
    t.equal(scores.total, 90)
    t.equal(new Set(scores.items.map((s: { trace_id: string }) => s.trace_id)).size, 90)
    const doneBy = async (app: typeof a) => {
      const line = /loupe_evaluations_total\{evaluator="helpful",outcome="scored"\} (\d+)/.exec(
        (await app.inject('/metrics')).body,
      )
      return Number(line?.[1] ?? 0)
    }
    const [byA, byB] = [await doneBy(a), await doneBy(b)]
    t.equal(byA + byB, 90, `replica A did ${byA}, replica B ${byB}`)
    t.ok(byA > 0 && byB > 0, 'both replicas took a share')

    // A replica that dies holding jobs: its claims run out and the others take them.
    await a.evaluationWorker.stop()
    await b.evaluationWorker.stop()
    await postBatch(
      a,
      key,
      ['dead-1', 'dead-2', 'dead-3'].map((id) => ({ trace_id: id, prompt: 'q', response: 'a' })),
    )
    const held = await storeA.evaluations.claim(10, Date.now(), 1500, 'a-replica-that-died')
    t.equal(held.length, 3)
    await b.evaluationWorker.start()
    const asked = judge.requests.length
    await new Promise((resolve) => setTimeout(resolve, 500))
    t.equal(judge.requests.length, asked, 'held jobs are left alone while the lease runs')
    await waitFor(async () => (await stats()).evaluated === 93, 20_000, 'the dead replica’s jobs done')
    t.equal(judge.requests.length, asked + 3)
  },
)
