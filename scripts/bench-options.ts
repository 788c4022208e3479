// npm run bench's settings, read once from the command line (see scripts/bench.ts for the flags), and the paths and
// sizes every part of the bench reads from them.
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { packageRoot } from '../src/lib/paths.js'
import { postgresBench } from './bench-postgres.js'

export const root = packageRoot()
export const { values: args } = parseArgs({
  options: {
    traces: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    database: { type: 'string' },
    out: { type: 'string' },
    sockets: { type: 'string' },
    tiny: { type: 'boolean', default: false },
    store: { type: 'string', default: 'sqlite' },
    'no-build': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
})
export const GROUPS = [
  'reads',
  'search',
  'ingest',
  'scores',
  'evaluators',
  'fanout',
  'viewer',
  'burst',
  'lifecycle',
  'datasets',
] as const
export type Group = (typeof GROUPS)[number]
export const only = args.only === undefined ? GROUPS : args.only.split(',').map((g) => g.trim())
for (const g of only) {
  if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only takes groups among ${GROUPS.join(', ')}`)
}
/** Whether this run measures the rows of a group. */
export const wants = (group: Group) => (only as readonly string[]).includes(group)
export const tiny = args.tiny === true
export const TRACES = Number(args.traces ?? (tiny ? 5_000 : 1_000_000))
export const DURATION = Number(args.duration ?? (tiny ? 1 : 10))
export const CONNECTIONS = Number(args.connections ?? 10)
export const FANOUT_SOCKETS = Number(args.sockets ?? (tiny ? 50 : 1000))
export const FANOUT_EVENTS = tiny ? 10 : 100
/** The burst: one batch of this many traces to this many sockets at once, while /health is probed. */
export const BURST_SOCKETS = tiny ? 200 : 10_000
export const BURST_TRACES = tiny ? 100 : 1000
export const FLOOR_INSERT_ROWS = tiny ? 2_000 : 50_000
if (args.store !== 'sqlite' && args.store !== 'postgres') throw new Error('--store is sqlite or postgres')
export const postgres =
  args.store === 'postgres'
    ? postgresBench(args.database ?? 'postgres://postgres@127.0.0.1:5432/loupe_bench', (line) =>
        process.stdout.write(`${line}\n`),
      )
    : null
export const seededPath = args.database ?? join(root, 'bench', 'data', `loupe-${TRACES}.db`)
export const workPath = join(dirname(seededPath), `work-${TRACES}.db`)
export const say = (line: string) => process.stdout.write(`${line}\n`)

/** OTLP spans sent by the real protobuf exporter in one run: 20 exports of 512 (--tiny), else 200. */
export const OTLP_SPANS = tiny ? 10_240 : 102_400
