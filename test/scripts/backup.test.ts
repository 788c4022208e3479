// npm run backup, exactly as the README runs it: a consistent, verified copy of a live database (the server still
// holds it open and writes to it), refusing to overwrite and refusing an in-memory database.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { backupDatabase } from '../../scripts/backup.js'
import { openDatabase } from '../../src/store/sqlite/driver.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { buildTestApp, createProject, postBatch, scratchDir } from '../helper.js'

const run = promisify(execFile)

t.test(
  'npm run backup copies a live database; the copy passes integrity_check and holds every trace',
  { timeout: 60_000 },
  async (t) => {
    const dir = scratchDir(t, 'backup')
    const file = join(dir, 'loupe.db')
    const app = await buildTestApp(t, { store: createSqliteStore(file) })
    const { key } = await createProject(app, 'Backed up')
    const traces = Array.from({ length: 200 }, (_, i) => ({ prompt: `p${i}`, steps: [{ tool: 'a' }] }))
    t.equal((await postBatch(app, key, traces)).json().accepted, 200)

    const destination = join(dir, 'copies', 'first.db')
    const { stdout } = await run('npm', ['run', '--silent', 'backup', '--', destination], {
      env: { ...process.env, DATABASE_URL: file },
    })
    t.match(stdout, /200 traces.*integrity ok/)
    // Still live: the server keeps writing after the copy, and the copy is a snapshot.
    t.equal((await postBatch(app, key, traces.slice(0, 10))).json().accepted, 10)
    const copy = openDatabase(destination, { readonly: true })
    t.teardown(() => copy.close())
    t.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
    t.equal((copy.prepare('select count(*) as n from traces').get() as { n: number }).n, 200)
    t.equal((copy.prepare('select count(*) as n from projects').get() as { n: number }).n, 1)

    const again = await run('npm', ['run', '--silent', 'backup', '--', destination], {
      env: { ...process.env, DATABASE_URL: file },
    }).catch((err: { code: number; stderr: string }) => err)
    t.equal((again as { code: number }).code, 1, 'an existing destination is refused')
    t.match((again as { stderr: string }).stderr, /already exists/)
  },
)

t.test('an in-memory or missing database cannot be backed up', async (t) => {
  t.throws(() => backupDatabase(':memory:', '/tmp/x.db'), /in-memory/)
  t.throws(() => backupDatabase('/nonexistent/loupe.db', '/tmp/x.db'), /no database/)
})
