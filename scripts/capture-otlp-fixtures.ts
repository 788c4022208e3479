// Captures what real instrumentation libraries export, as test fixtures: installs OpenInference's OpenAI
// instrumentation, OpenLLMetry (@traceloop/node-server-sdk) and the Vercel AI SDK in a temporary folder, runs five
// scenarios with each (a chat, a streamed chat, a failing call, an embedding, an agent with two chats and a tool)
// against a local fake OpenAI-compatible server, and writes the OTLP/JSON bodies each run exported to
// test/fixtures/otlp/libraries/<library>/<scenario>.json. test/otlp/libraries.test.ts replays them.
//
//   npx tsx scripts/capture-otlp-fixtures.ts [--dir <folder to install into and keep>] [--out <folder>]
//
// Needs the npm registry. Library versions are pinned below; bump them here and capture again to see what changed.
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { SCENARIO_TEXT, startFakeOpenAi } from './capture-otlp/fake-openai.js'

const PACKAGES = {
  '@arizeai/openinference-instrumentation-openai': '4.2.7',
  '@arizeai/openinference-core': '2.7.1',
  '@traceloop/node-server-sdk': '0.27.0',
  ai: '6.0.326',
  '@ai-sdk/openai': '3.0.141',
  openai: '6.49.0',
  zod: '4.6.7',
  '@opentelemetry/api': '1.9.1',
  '@opentelemetry/sdk-trace-node': '2.12.0',
  '@opentelemetry/sdk-trace-base': '2.12.1',
  '@opentelemetry/resources': '2.12.1',
  '@opentelemetry/exporter-trace-otlp-http': '0.223.1',
}
/** Each library: its runner (beside this script) and the package whose version names the capture. */
const LIBRARIES = {
  openinference: { runner: 'openinference.mjs', package: '@arizeai/openinference-instrumentation-openai' },
  openllmetry: { runner: 'traceloop.mjs', package: '@traceloop/node-server-sdk' },
  'vercel-ai': { runner: 'vercel.mjs', package: 'ai' },
} as const
export const SCENARIOS = ['chat', 'stream', 'fail', 'embedding', 'agent'] as const

const { values: args } = parseArgs({
  options: { dir: { type: 'string' }, out: { type: 'string', default: 'test/fixtures/otlp/libraries' } },
})
const here = new URL('./capture-otlp/', import.meta.url)
const dir = args.dir ? resolve(args.dir) : mkdtempSync(join(tmpdir(), 'loupe-capture-'))
const out = resolve(args.out!)

mkdirSync(dir, { recursive: true })
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({ name: 'loupe-capture', private: true, type: 'module', dependencies: PACKAGES }, null, 2),
)
console.log(`installing the libraries in ${dir}`)
const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
  cwd: dir,
  stdio: 'inherit',
})
if (install.status !== 0) throw new Error('npm install failed')
for (const file of [...Object.values(LIBRARIES).map((l) => l.runner), 'openai-calls.mjs'])
  copyFileSync(new URL(file, here), join(dir, file))

// Every OTLP body exported, in arrival order; each run takes what arrived while it ran.
let received: unknown[] = []
const collector = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (chunk: Buffer) => chunks.push(chunk))
  req.on('end', () => {
    const raw = Buffer.concat(chunks)
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw
    if (!String(req.headers['content-type']).includes('json')) {
      res.writeHead(415).end()
      throw new Error(`expected OTLP/JSON, got ${req.headers['content-type']}`)
    }
    received.push(JSON.parse(body.toString('utf8')))
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
})
await new Promise<void>((done) => collector.listen(0, '127.0.0.1', done))
const address = collector.address()
const otlpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1/traces`
const openai = await startFakeOpenAi()

const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

/** Resource attributes that name this machine; the fixture must not depend on where it was captured. */
const MACHINE_ATTRIBUTES = new Set(['host.name', 'host.id', 'process.pid', 'process.owner'])

/** The body with the machine's names replaced (stack traces and command lines name the temporary folder). */
function anonymized(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replaceAll(dir, '<capture>'), (key, value: unknown) => {
    if (key !== 'attributes' || !Array.isArray(value)) return value
    return value.map((attribute: { key: string; value: unknown }) =>
      MACHINE_ATTRIBUTES.has(attribute.key) ? { key: attribute.key, value: { stringValue: 'capture' } } : attribute,
    )
  })
}

function run(runner: string, scenario: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [runner, scenario], {
      cwd: dir,
      stdio: 'inherit',
      env: {
        ...process.env,
        CAPTURE_OPENAI_URL: openai.url,
        CAPTURE_OTLP_URL: otlpUrl,
        CAPTURE_SCENARIO_TEXT: JSON.stringify(SCENARIO_TEXT),
      },
    })
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${runner} ${scenario} exited with ${code}`))))
  })
}

try {
  for (const [library, { runner, package: name }] of Object.entries(LIBRARIES)) {
    mkdirSync(join(out, library), { recursive: true })
    for (const scenario of SCENARIOS) {
      received = []
      await run(runner, scenario)
      if (received.length === 0) throw new Error(`${library} ${scenario}: nothing was exported`)
      const exports = received.map(anonymized)
      const fixture = { library: `${name}@${versionOf(name)}`, scenario, exports }
      writeFileSync(join(out, library, `${scenario}.json`), `${JSON.stringify(fixture, null, 2)}\n`)
      console.log(`${library} ${scenario}: ${exports.length} export(s)`)
    }
  }
} finally {
  collector.close()
  openai.server.close()
  if (!args.dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true })
}
