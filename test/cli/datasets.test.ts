// loupe datasets, in-process against a real server: a dataset made, filled from traces by id and by filter, from a
// JSONL and a CSV file, its items listed now and as of a time, exported as JSONL and CSV (what the import takes back),
// and the exit codes — 0 done, 1 refused by the server, 2 used wrongly (nothing changed).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { fileFormat } from '../../src/cli/commands/datasets.js'
import { runCli } from '../../src/cli/program.js'
import { createProject, postBatch, scratchDir, startTestServer } from '../helper.js'

const capture = () => ({
  text: '',
  write(text: string) {
    this.text += text
  },
})

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout = capture()
  const stderr = capture()
  const code = await runCli(argv, { stdout, stderr, env, interrupted: () => new Promise(() => {}) })
  return { code, out: stdout.text, err: stderr.text }
}

t.test('make a dataset, fill it from traces and files, read it now and as it was, export it', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app, 'Support')
  const other = await createProject(app, 'Other')
  const capitals = { France: 'Paris', Italy: 'Rome', Spain: 'Madrid', Peru: 'Lima' }
  await postBatch(
    app,
    key,
    Object.entries(capitals).map(([country, capital], i) => ({
      trace_id: `t-${i}`,
      prompt: country,
      response: capital,
      status: i % 2 === 0 ? 'failed' : 'success',
      created_at: `2026-11-2${i}T10:00:00Z`,
    })),
  )
  await postBatch(app, other.key, [{ trace_id: 'elsewhere', prompt: 'x', status: 'failed' }])
  const run = (...argv: string[]) => cli(['--url', url, 'datasets', ...argv])
  const items = async () => (await run('items', 'capitals', '--json', '-n', '1000')).out

  const created = await run('create', 'capitals', '--project', project_id, '-d', 'the capitals we got wrong')
  t.equal(created.code, 0, created.err)
  t.match(created.out, /Created dataset capitals in /)
  t.equal((await run('create', 'capitals', '--project', project_id)).code, 1, 'a name taken in the project: 409')

  const listed = await run('list')
  t.match(listed.out, /capitals\s+0\s+/)
  t.match(JSON.parse((await run('list', '--json')).out), { total: 1, items: [{ name: 'capitals', item_count: 0 }] })

  // From traces: the failed ones by filter, then two by id (one already in: skipped).
  const byFilter = await run('add', 'capitals', '--status', 'failed')
  t.equal(byFilter.code, 0, byFilter.err)
  t.match(byFilter.out, /Added 2 item\(s\) to capitals\./)
  const byId = await run('add', 'capitals', 't-0', 't-1', '--json')
  t.same(JSON.parse(byId.out), { added: 1, skipped: 1 })
  t.match(JSON.parse(await items()), {
    total: 3,
    items: [
      { input: 'Spain', expected_output: 'Madrid', source_trace_id: 't-2' },
      { input: 'France', expected_output: 'Paris', source_trace_id: 't-0' },
      { input: 'Italy', expected_output: 'Rome', source_trace_id: 't-1' },
    ],
  })
  const before = JSON.parse(await items()).items[2]
  const asOf = new Date(Date.parse(before.updated_at) + 1).toISOString()
  await new Promise((resolve) => setTimeout(resolve, 5))

  // From files: JSONL and CSV (by extension), each checked whole first.
  const dir = scratchDir(t, 'datasets-cli')
  const jsonl = join(dir, 'more.jsonl')
  writeFileSync(jsonl, '{"input":"Peru","expected_output":"Lima"}\n')
  t.match((await run('import', 'capitals', jsonl)).out, /Imported 1 item\(s\) into capitals\./)
  const csv = join(dir, 'more.csv')
  writeFileSync(csv, 'input,expected_output\n"{""country"":""Chile""}",Santiago\n')
  t.same(JSON.parse((await run('import', 'capitals', csv, '--json')).out), { added: 1 })
  const bad = join(dir, 'bad.jsonl')
  writeFileSync(bad, '{"input":"ok"}\n{"expected_output":"no input"}\n')
  const refused = await run('import', 'capitals', bad)
  t.equal(refused.code, 1, 'a bad line: the server refuses the whole file')
  t.match(refused.err, /line 2/)
  t.equal(JSON.parse(await items()).total, 5, 'nothing of the bad file was added')
  t.equal((await run('import', 'capitals', join(dir, 'missing.jsonl'))).code, 2, 'an unreadable file')

  // The table; as of a time: the dataset before the imports.
  const table = await run('items', 'capitals')
  t.match(table.out, /ITEM_ID\s+V\s+STATUS\s+INPUT\s+EXPECTED\s+SOURCE/)
  t.match(table.out, /\{"country":"Chile"\}\s+Santiago/)
  t.match(table.out, /5 of 5 item\(s\) of capitals now/)
  const then = await run('items', 'capitals', '--as-of', asOf)
  t.match(then.out, /3 of 3 item\(s\) of capitals as of /)
  t.notMatch(then.out, /Lima/)

  // Exported: JSONL to stdout, CSV to a file (never over an existing one); the export imports back.
  const exported = await run('export', 'capitals')
  t.equal(exported.code, 0, exported.err)
  const lines = exported.out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  t.equal(lines.length, 5)
  t.same(lines[4], { input: { country: 'Chile' }, expected_output: 'Santiago', metadata: {}, source_trace_id: null })
  const past = await run('export', 'capitals', '--as-of', asOf, '--format', 'csv')
  t.equal(past.out.trim().split(/\r?\n/)[0], 'input,expected_output,metadata,source_trace_id')
  t.equal(past.out.trim().split(/\r?\n/).length, 4, 'the header and the three items of then')
  const file = join(dir, 'out.csv')
  t.equal((await run('export', 'capitals', '-o', file)).code, 0)
  t.equal((await run('export', 'capitals', '-o', file)).code, 1, 'an existing file is not overwritten')
  t.equal((await run('create', 'copy', '--project', project_id)).code, 0)
  t.match((await run('import', 'copy', file)).out, /Imported 5 item\(s\)/, 'the CSV export is what the import takes')

  // Used wrongly: exit 2, nothing added.
  t.equal((await run('add', 'capitals')).code, 2, 'neither ids nor filters')
  t.equal((await run('add', 'capitals', 't-3', '--status', 'failed')).code, 2, 'both ids and filters')
  t.equal((await run('add', 'capitals', '--project', project_id, '--status', 'failed')).code, 2)
  t.equal((await run('add', 'capitals', 't-3', '--limit', '5')).code, 2, '--limit without filters')
  t.equal((await run('add', 'capitals', '--status', 'failed', '--limit', '0')).code, 2)
  t.equal((await run('export', 'capitals', '--format', 'xml')).code, 2)
  t.equal(JSON.parse(await items()).total, 5)

  // Refused by the server: exit 1 with its message.
  const unknown = await run('items', 'none-such')
  t.equal(unknown.code, 1)
  t.match(unknown.err, /no dataset has the id or name 'none-such'/)
  const foreign = await run('add', 'capitals', 'elsewhere')
  t.equal(foreign.code, 1, "another project's trace")
  t.equal(JSON.parse(await items()).total, 5)
})

t.test('a project key works within its own project', async (t) => {
  const token = 'cli-admin-token-long-enough-1234'
  const { app, url } = await startTestServer(t, { config: { adminToken: token } })
  const { key, project_id } = await createProject(app, 'Keyed', 'production', token)
  const made = await cli(['--url', url, '--token', key, 'datasets', 'create', 'mine', '--json'])
  t.equal(made.code, 0, made.err)
  t.equal(JSON.parse(made.out).project_id, project_id, "a project key's dataset is its project's")
  const without = await cli(['--url', url, 'datasets', 'list'])
  t.equal(without.code, 1)
  t.match(without.err, /protected mode/)
})

t.test("a file's format: --format, else its extension", async (t) => {
  t.equal(fileFormat('cases.csv', undefined), 'csv')
  t.equal(fileFormat('CASES.CSV', undefined), 'csv')
  t.equal(fileFormat('cases.jsonl', undefined), 'jsonl')
  t.equal(fileFormat('cases.txt', undefined), 'jsonl')
  t.equal(fileFormat('cases.csv', 'jsonl'), 'jsonl')
})
