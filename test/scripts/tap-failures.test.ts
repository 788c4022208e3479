// npm test's recap of failures: each innermost failed assertion, named by its file and subtests, with its diagnosis.
import t from 'tap'
import { failuresOf } from '../../scripts/tap-failures.js'

const OUTPUT = `# Subtest: test/a.test.ts
    # Subtest: outer
        # Subtest: inner
            not ok 1 - one is two
              ---
              found: 1
              wanted: 2
              ...
            ok 2 - fine
            1..2
        not ok 1 - inner # time=3ms
          ---
          at: somewhere
          ...
        1..1
    not ok 1 - outer # time=5ms
    1..1
not ok 1 - test/a.test.ts # time=9ms
# Subtest: test/b.test.ts
    not ok 1 - timed out
ok 2 - test/c.test.ts
`

t.test('only the innermost failures, each with its path and diagnosis', async (t) => {
  t.same(failuresOf(OUTPUT), [
    'test/a.test.ts > outer > inner > one is two\n              found: 1\n              wanted: 2',
    'test/b.test.ts > timed out',
  ])
})

t.test('a passing run has nothing to tell', async (t) => {
  t.same(failuresOf('# Subtest: test/c.test.ts\n    ok 1 - fine\nok 1 - test/c.test.ts\n'), [])
})
