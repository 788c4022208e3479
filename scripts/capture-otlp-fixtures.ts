// Captures what real instrumentation libraries export, as test fixtures: installs OpenInference's OpenAI and
// LangChain instrumentations, OpenLLMetry (@traceloop/node-server-sdk), the Vercel AI SDK, Langfuse's SDK
// (@langfuse/tracing + @langfuse/otel) and the OpenTelemetry project's OpenAI instrumentation (with its log records)
// in temporary folders, runs each library's scenarios (a chat, a streamed chat, a failing call, an embedding, an
// agent with two chats and a tool; a prompt-template chain and a LangGraph agent for LangChain; the Responses API for
// the OpenTelemetry instrumentation) against a local fake OpenAI-compatible server, and writes the OTLP/JSON bodies
// each run exported (spans and log records, in the order they arrived) to
// test/fixtures/otlp/libraries/<library>/<scenario>.json. test/otlp/libraries.test.ts replays them.
//
//   npx tsx scripts/capture-otlp-fixtures.ts [--dir <folder to install into and keep>] [--out <folder>]
//                                            [--only <library>[,<library>…]]
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

/** The libraries' packages, in install groups whose OpenTelemetry versions agree (each its own folder). */
const MAIN_PACKAGES = {
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
  '@arizeai/openinference-instrumentation-langchain': '4.1.1',
  '@langchain/core': '1.4.0',
  '@langchain/openai': '1.6.0',
  '@langchain/langgraph': '1.7.3',
  '@langfuse/tracing': '5.11.1',
  '@langfuse/otel': '5.11.1',
}
/** The OpenTelemetry OpenAI instrumentation wants the 1.10 API, which the 2.x trace SDK above does not accept. */
const OTEL_PACKAGES = {
  openai: '6.49.0',
  '@opentelemetry/api': '1.10.0',
  '@opentelemetry/instrumentation-openai': '0.22.0',
  '@opentelemetry/sdk-trace': '3.1.1',
  '@opentelemetry/context-async-hooks': '3.1.1',
  '@opentelemetry/exporter-trace-otlp-http': '0.301.0',
  '@opentelemetry/api-logs': '0.223.1',
  '@opentelemetry/sdk-logs': '3.1.0',
  '@opentelemetry/exporter-logs-otlp-http': '0.301.0',
  '@opentelemetry/resources': '3.1.1',
}
const GROUPS = { main: MAIN_PACKAGES, otel: OTEL_PACKAGES } as const
export const SCENARIOS = ['chat', 'stream', 'fail', 'embedding', 'agent'] as const
/** Each library: its runner (beside this script), its install group, its scenarios, the package naming the capture. */
const LIBRARIES: Record<
  string,
  { runner: string; group: keyof typeof GROUPS; scenarios: readonly string[]; package: string }
> = {
  openinference: {
    runner: 'openinference.mjs',
    group: 'main',
    scenarios: SCENARIOS,
    package: '@arizeai/openinference-instrumentation-openai',
  },
  openllmetry: { runner: 'traceloop.mjs', group: 'main', scenarios: SCENARIOS, package: '@traceloop/node-server-sdk' },
  'vercel-ai': { runner: 'vercel.mjs', group: 'main', scenarios: SCENARIOS, package: 'ai' },
  'otel-openai': {
    runner: 'otel-openai.mjs',
    group: 'otel',
    scenarios: [...SCENARIOS, 'responses'],
    package: '@opentelemetry/instrumentation-openai',
  },
  'openinference-langchain': {
    runner: 'langchain.mjs',
    group: 'main',
    scenarios: ['chain', 'fail', 'agent'],
    package: '@arizeai/openinference-instrumentation-langchain',
  },
  langfuse: {
    runner: 'langfuse.mjs',
    group: 'main',
    scenarios: ['chat', 'fail', 'embedding', 'agent'],
    package: '@langfuse/tracing',
  },
}

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    out: { type: 'string', default: 'test/fixtures/otlp/libraries' },
    only: { type: 'string' },
  },
})
const only = args.only ? new Set(args.only.split(',')) : null
const chosen = Object.entries(LIBRARIES).filter(([library]) => only === null || only.has(library))
if (chosen.length === 0) throw new Error(`--only names no library of: ${Object.keys(LIBRARIES).join(', ')}`)
const here = new URL('./capture-otlp/', import.meta.url)
const base = args.dir ? resolve(args.dir) : mkdtempSync(join(tmpdir(), 'loupe-capture-'))
const out = resolve(args.out!)
const dirOf = (group: keyof typeof GROUPS) => join(base, group)

for (const group of new Set(chosen.map(([, l]) => l.group))) {
  const dir = dirOf(group)
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `loupe-capture-${group}`, private: true, type: 'module', dependencies: GROUPS[group] }),
  )
  console.log(`installing the ${group} libraries in ${dir}`)
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    stdio: 'inherit',
  })
  if (install.status !== 0) throw new Error('npm install failed')
  for (const file of [...chosen.map(([, l]) => l.runner), 'openai-calls.mjs'])
    copyFileSync(new URL(file, here), join(dir, file))
}

// Every OTLP body exported (spans to /v1/traces or Langfuse's path, log records to /v1/logs), in arrival order; each
// run takes what arrived while it ran.
let received: unknown[] = []
const LANGFUSE_PATH = '/api/public/otel/v1/traces'
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
    if (req.url === LANGFUSE_PATH && !/^Basic /.test(String(req.headers.authorization)))
      throw new Error(`Langfuse's exporter sent no Basic credentials: ${req.headers.authorization}`)
    received.push(JSON.parse(body.toString('utf8')))
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
})
await new Promise<void>((done) => collector.listen(0, '127.0.0.1', done))
const address = collector.address()
const collectorUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
const openai = await startFakeOpenAi()

const versionOf = (dir: string, name: string) =>
  (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version

/** Resource attributes that name this machine; the fixture must not depend on where it was captured. */
const MACHINE_ATTRIBUTES = new Set(['host.name', 'host.id', 'process.pid', 'process.owner'])

/** The body with the machine's names replaced (stack traces and command lines name the temporary folder). */
function anonymized(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replaceAll(base, '<capture>'), (key, value: unknown) => {
    if (key !== 'attributes' || !Array.isArray(value)) return value
    return value.map((attribute: { key: string; value: unknown }) =>
      MACHINE_ATTRIBUTES.has(attribute.key) ? { key: attribute.key, value: { stringValue: 'capture' } } : attribute,
    )
  })
}

function run(dir: string, runner: string, scenario: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [runner, scenario], {
      cwd: dir,
      stdio: 'inherit',
      env: {
        ...process.env,
        CAPTURE_OPENAI_URL: openai.url,
        CAPTURE_OTLP_URL: `${collectorUrl}/v1/traces`,
        CAPTURE_OTLP_LOGS_URL: `${collectorUrl}/v1/logs`,
        CAPTURE_LANGFUSE_URL: collectorUrl,
        CAPTURE_SCENARIO_TEXT: JSON.stringify(SCENARIO_TEXT),
      },
    })
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${runner} ${scenario} exited with ${code}`))))
  })
}

try {
  for (const [library, { runner, group, scenarios, package: name }] of chosen) {
    mkdirSync(join(out, library), { recursive: true })
    for (const scenario of scenarios) {
      received = []
      await run(dirOf(group), runner, scenario)
      if (received.length === 0) throw new Error(`${library} ${scenario}: nothing was exported`)
      const exports = received.map(anonymized)
      const fixture = { library: `${name}@${versionOf(dirOf(group), name)}`, scenario, exports }
      writeFileSync(join(out, library, `${scenario}.json`), `${JSON.stringify(fixture, null, 2)}\n`)
      console.log(`${library} ${scenario}: ${exports.length} export(s)`)
    }
  }
} finally {
  collector.close()
  openai.server.close()
  if (!args.dir && existsSync(base)) rmSync(base, { recursive: true, force: true })
}
