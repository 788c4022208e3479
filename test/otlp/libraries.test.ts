// What real instrumentation libraries export reads in Loupe as their user expects: every fixture under
// test/fixtures/otlp/libraries (captured from the libraries by scripts/capture-otlp-fixtures.ts) is replayed into
// a fresh app and each stored trace is checked field by field.
import t from 'tap'
import { TraceSchema } from '../../schemas/index.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'
import { libraryFixtures, replay, spanCountOf, traceIdsOf } from './libraries.js'

const LIBRARIES = ['openinference', 'openllmetry', 'vercel-ai'] as const
const SCENARIOS = ['chat', 'stream', 'fail', 'embedding', 'agent'] as const

for (const library of LIBRARIES) {
  t.test(`${library}: every captured export is accepted and each scenario is one valid trace`, async (t) => {
    const fixtures = libraryFixtures(library)
    t.same([...fixtures.keys()].sort(), [...SCENARIOS].sort(), 'a fixture for every scenario')
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key } = await createProject(app)
    for (const [scenario, fixture] of fixtures) {
      t.equal(traceIdsOf(fixture).length, 1, `${scenario}: one trace id`)
      const { replies, traces } = await replay(app, key, fixture)
      t.same(
        replies,
        fixture.exports.map(() => ({})),
        `${scenario}: every span accepted`,
      )
      const trace = traces[0]
      if (!trace) {
        t.fail(`${scenario}: stored`)
        continue
      }
      t.same(schemaErrors(TraceSchema, trace), [], `${scenario}: a valid trace`)
      t.equal(trace.steps.length, spanCountOf(fixture) - 1, `${scenario}: every span but the root is a step`)
    }
  })
}
