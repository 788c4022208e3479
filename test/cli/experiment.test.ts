// loupe experiment run, the gate for CI, in-process against a real server with a task module on disk: the table, the
// exit codes (0 every check holds, 1 an assertion failed or a score regressed from the baseline, 2 used wrongly), and
// the assertions' and regressions' rules as pure functions.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkAssertion, parseAssertion, regressions } from '../../src/cli/commands/experiment.js'
import { runCli } from '../../src/cli/program.js'
import { experimentAggregates } from '../../src/services/experiments.js'
import { createProject, scratchDir, startTestServer } from '../helper.js'

const capture = () => ({
  text: '',
  write(text: string) {
    this.text += text
  },
})

async function cli(argv: string[], env: NodeJS.ProcessEnv) {
  const stdout = capture()
  const stderr = capture()
  const code = await runCli(argv, { stdout, stderr, env, interrupted: () => new Promise(() => {}) })
  return { code, out: stdout.text, err: stderr.text }
}

t.test('the gate passes, fails on an assertion, and fails on a regression from its baseline', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app, 'Gated')
  const dataset = await app.inject({ method: 'POST', url: '/datasets', payload: { name: 'capitals', project_id } })
  const datasetId = dataset.json().dataset_id
  await app.inject({
    method: 'POST',
    url: `/datasets/${datasetId}/items`,
    payload: {
      items: [
        { input: 'France', expected_output: 'Paris' },
        { input: 'Italy', expected_output: 'Rome' },
        { input: 'Spain', expected_output: 'Madrid' },
        { input: 'Peru', expected_output: 'Lima' },
      ],
    },
  })
  const dir = scratchDir(t, 'experiment-cli')
  // A fake model: `good` knows every capital, `bad` only two; both report a cost.
  const taskFile = (name: string, known: string[]) => {
    const file = join(dir, `${name}.mjs`)
    writeFileSync(
      file,
      `const capitals = ${JSON.stringify(Object.fromEntries(known.map((k) => [k, { France: 'Paris', Italy: 'Rome', Spain: 'Madrid', Peru: 'Lima' }[k]])))}
export default async function task(country, { trace }) {
  trace.setTokens({ prompt_tokens: 10, completion_tokens: 2 })
  if (!(country in capitals)) throw new Error('unknown country')
  return capitals[country]
}
export const evaluators = { correctness: ({ output, expected }) => output === expected }
`,
    )
    return file
  }
  const good = taskFile('good', ['France', 'Italy', 'Spain', 'Peru'])
  const bad = taskFile('bad', ['France', 'Italy'])
  const env = { LOUPE_API_KEY: key }
  const run = (...argv: string[]) => cli(['--url', url, 'experiment', 'run', '--dataset', 'capitals', ...argv], env)

  const passed = await run('--task', good, '--assert', 'correctness >= 0.9', '--assert', 'pass_rate == 1')
  t.equal(passed.code, 0, passed.err)
  t.match(passed.out, /good\s+experiment/)
  t.match(passed.out, /correctness\s+1/)
  t.match(passed.out, /pass {2}correctness >= 0.9 {2}\(1\)/)

  const failed = await run('--task', bad, '--assert', 'correctness >= 0.9', '--assert', 'tokens <= 1000')
  t.equal(failed.code, 1, 'a failed assertion exits 1')
  t.match(failed.out, /FAIL {2}correctness >= 0.9 {2}\(0.5\)/)
  t.match(failed.out, /pass {2}tokens <= 1000/)
  t.match(failed.err, /1 assertion\(s\) failed/)

  const regressed = await run('--task', bad, '--baseline', 'good')
  t.equal(regressed.code, 1, 'a regression from the baseline exits 1')
  t.match(regressed.out, /REGRESSED {2}pass_rate: 0.5 < baseline 1/)
  t.match(regressed.out, /REGRESSED {2}correctness: 0.5 < baseline 1/)
  t.match(regressed.out, /baseline \(good\)/)

  const steady = await run('--task', good, '--baseline', 'good')
  t.equal(steady.code, 0, 'the same figures as the baseline pass')
  const asJson = await run('--task', good, '--json', '--assert', 'unknown_score > 0')
  t.equal(asJson.code, 1, 'a figure the run does not have fails its assertion')
  t.match(JSON.parse(asJson.out), { assertions: [{ figure: 'unknown_score', ok: false, value: null }] })

  t.equal((await run('--task', good, '--assert', 'correctness is high')).code, 2, 'a bad assertion is a usage error')
  t.equal((await cli(['--url', url, 'experiment', 'run', '--dataset', 'capitals', '--task', good], {})).code, 2)
  t.equal((await run('--task', join(dir, 'missing.mjs'))).code, 2)
  const unknown = await run('--task', good, '--name', 'x')
  t.equal(unknown.code, 0)
  t.equal((await cli(['--url', url, 'experiment', 'run', '--dataset', 'none', '--task', good], env)).code, 1)
})

t.test('assertions and regressions are exact on purpose-built figures', async (t) => {
  const run = (latency: number, scores: Record<string, number>, status = 'success') => ({
    run: {
      trace_id: 't',
      status: status as 'success',
      output: null,
      error: null,
      latency,
      token_count: 3,
      cost: 0.25,
      scores,
    },
  })
  const a = experimentAggregates([run(10, { c: 1 }), run(20, { c: 0.5 }, 'failed')])
  t.same(checkAssertion(a, parseAssertion('c >= 0.75')), { value: 0.75, ok: true })
  t.same(checkAssertion(a, parseAssertion('c > 0.75')), { value: 0.75, ok: false })
  t.same(checkAssertion(a, parseAssertion('cost <= 0.50')), { value: 0.5, ok: true })
  t.same(checkAssertion(a, parseAssertion('cost < 0.5')), { value: 0.5, ok: false })
  t.same(checkAssertion(a, parseAssertion('latency == 15')), { value: 15, ok: true })
  t.same(checkAssertion(a, parseAssertion('failed <= 0')), { value: 1, ok: false })
  t.throws(() => parseAssertion('c >= high'))
  t.throws(() => parseAssertion('>= 1'))
  const b = experimentAggregates([run(10, { c: 1 }), run(20, { c: 0.4 })])
  t.same(regressions(a, b, 0), [{ figure: 'pass_rate', baseline: 1, current: 0.5 }])
  t.same(regressions(b, a, 0), [{ figure: 'c', baseline: 0.75, current: 0.7 }])
  t.same(regressions(b, a, 0.1), [], 'within the tolerance')
})
