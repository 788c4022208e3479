// Experiments: a run of a task over a dataset as of a time. The runs themselves are ordinary traces carrying
// `experiment_id` and `dataset_item_id` (ingested, priced, scored and evaluated like any trace); an experiment's answer
// gathers them item by item with their scores and its aggregates, and a comparison lines several runs up item by item
// with each one's difference from the first.
import { uuidv7 } from 'uuidv7'
import {
  COMPARE_LIMIT,
  type CompareExperimentsResponse,
  type Experiment,
  type ExperimentAggregates,
  type ExperimentDelta,
  type ExperimentDetailResponse,
  type ExperimentInput,
  type ExperimentItem,
  type ExperimentRun,
  type ListExperimentsQuery,
  type ListExperimentsResponse,
  type ScoreSummary,
  type Trace,
} from '../../schemas/index.js'
import { p95Index } from '../analytics/math.js'
import { ExperimentNotFound, InvalidInput } from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import { parseTimestamp } from '../lib/time.js'
import type { ExperimentRecord, ExperimentTraceRow, Store } from '../store/types.js'
import type { DatasetService } from './datasets.js'

export interface ExperimentService {
  create(input: ExperimentInput, scope: string | null): Promise<Experiment>
  list(query: ListExperimentsQuery, scope: string | null): Promise<ListExperimentsResponse>
  get(experimentId: string, scope: string | null): Promise<ExperimentDetailResponse>
  /** `ids`: 2–3 experiment ids, comma-separated; the first is the baseline. */
  compare(ids: string, scope: string | null): Promise<CompareExperimentsResponse>
  /**
   * What a trace that is an experiment's run was expected to answer: its dataset item's `expected_output`, in the
   * version the experiment ran on; undefined when the trace is no run (or its experiment or item is gone). What a
   * judge's `{{expected}}` is filled with.
   */
  expectedOutput(trace: Pick<Trace, 'project_id' | 'experiment_id' | 'dataset_item_id'>): Promise<unknown>
}

export interface ExperimentDeps {
  store: Store
  datasets: DatasetService
  now?: () => number
  newId?: () => string
  /**
   * Evaluations of the experiment's traces not run yet. Until evaluators run on stored traces by themselves, none
   * are ever waiting: 0.
   */
  pendingEvaluations?: (experiment: ExperimentRecord) => Promise<number>
}

const iso = (ms: number) => new Date(ms).toISOString()

const experimentView = (e: ExperimentRecord): Experiment => ({
  experiment_id: e.experiment_id,
  project_id: e.project_id,
  dataset_id: e.dataset_id,
  name: e.name,
  as_of: iso(e.as_of),
  metadata: e.metadata,
  created_at: iso(e.created_at),
})

/** An item's run as its trace and scores say it. */
const runOf = (row: ExperimentTraceRow, scores: ScoreSummary | undefined): ExperimentRun => ({
  trace_id: row.trace_id,
  status: row.status,
  output: row.response,
  error: row.failure_reason,
  latency: row.latency,
  token_count: row.token_count,
  cost: row.cost,
  scores: Object.fromEntries(Object.entries(scores ?? {}).map(([name, s]) => [name, s.mean])),
})

const round = (value: number, digits = 6) => Math.round(value * 10 ** digits) / 10 ** digits

/** An experiment's figures from its items: counts, pass rate, latency, tokens, cost, and each score's mean. */
export function experimentAggregates(items: readonly Pick<ExperimentItem, 'run'>[]): ExperimentAggregates {
  const runs = items.flatMap((i) => (i.run ? [i.run] : []))
  const failed = runs.filter((r) => r.status === 'failed').length
  const latencies = runs.map((r) => r.latency)
  const priced = runs.filter((r) => r.cost !== null)
  const scores: ExperimentAggregates['scores'] = {}
  for (const run of runs) {
    for (const [name, value] of Object.entries(run.scores)) {
      const s = scores[name] ?? { count: 0, mean: 0 }
      s.mean += value
      s.count++
      scores[name] = s
    }
  }
  for (const s of Object.values(scores)) s.mean = round(s.mean / s.count)
  return {
    items: items.length,
    completed: runs.length,
    failed,
    missing: items.length - runs.length,
    pass_rate: items.length === 0 ? 0 : round((runs.length - failed) / items.length),
    latency_mean: runs.length === 0 ? null : round(latencies.reduce((a, b) => a + b, 0) / runs.length, 3),
    latency_p95: runs.length === 0 ? null : (latencies.sort((a, b) => a - b)[p95Index(runs.length)] ?? null),
    total_tokens: runs.reduce((a, r) => a + r.token_count, 0),
    // Summed in whole nano-dollars, as every cost figure is.
    total_cost: priced.reduce((a, r) => a + Math.round((r.cost as number) * 1e9), 0) / 1e9,
    unpriced: runs.length - priced.length,
    scores,
  }
}

const difference = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b, 9))

/** A run's figures minus the baseline's: null where either has none; scores both have. */
export function runDelta(run: ExperimentRun | null, base: ExperimentRun | null): ExperimentDelta | null {
  if (!run || !base) return null
  const scores: Record<string, number> = {}
  for (const [name, value] of Object.entries(run.scores)) {
    const other = base.scores[name]
    if (other !== undefined) scores[name] = round(value - other)
  }
  return {
    latency: difference(run.latency, base.latency),
    token_count: difference(run.token_count, base.token_count),
    cost: difference(run.cost, base.cost),
    scores,
  }
}

function aggregateDelta(a: ExperimentAggregates, base: ExperimentAggregates) {
  const scores: Record<string, number> = {}
  for (const [name, s] of Object.entries(a.scores)) {
    const other = base.scores[name]
    if (other !== undefined) scores[name] = round(s.mean - other.mean)
  }
  return {
    pass_rate: round(a.pass_rate - base.pass_rate),
    latency_mean: difference(a.latency_mean, base.latency_mean),
    total_tokens: a.total_tokens - base.total_tokens,
    total_cost: round(a.total_cost - base.total_cost, 9),
    scores,
  }
}

export function createExperimentService({
  store,
  datasets,
  now = Date.now,
  newId = uuidv7,
  pendingEvaluations = async () => 0,
}: ExperimentDeps): ExperimentService {
  async function visible(experimentId: string, scope: string | null): Promise<ExperimentRecord> {
    const e = await store.datasets.getExperiment(experimentId)
    if (!e || !inScope(scope, e.project_id)) throw new ExperimentNotFound(experimentId)
    return e
  }

  async function detail(e: ExperimentRecord): Promise<ExperimentDetailResponse> {
    const [items, traces] = await Promise.all([
      datasets.allItems(e.dataset_id, e.as_of),
      store.datasets.experimentTraces(e),
    ])
    // The newest run of each item wins (traces come oldest first).
    const latest = new Map<string, ExperimentTraceRow>()
    for (const row of traces) if (row.dataset_item_id !== null) latest.set(row.dataset_item_id, row)
    const scores = await store.scores.summaries([...latest.values()].map((r) => r.trace_id))
    const rows: ExperimentItem[] = items.map((item) => {
      const row = latest.get(item.item_id)
      return {
        dataset_item_id: item.item_id,
        version: item.version,
        input: item.input,
        expected_output: item.expected_output,
        run: row ? runOf(row, scores.get(row.trace_id)) : null,
      }
    })
    return {
      experiment: experimentView(e),
      aggregates: experimentAggregates(rows),
      pending_evaluations: await pendingEvaluations(e),
      items: rows,
    }
  }

  return {
    async create(input, scope) {
      const d = await datasets.visible(input.dataset_id, scope)
      const at = now()
      let asOf = at
      if (input.as_of !== undefined) {
        const parsed = parseTimestamp(input.as_of)
        if (parsed === null) throw new InvalidInput('body/as_of must be an ISO 8601 timestamp or an epoch number')
        if (parsed > at) throw new InvalidInput('body/as_of must not be in the future')
        asOf = parsed
      }
      const e: ExperimentRecord = {
        experiment_id: newId(),
        project_id: d.project_id,
        dataset_id: d.dataset_id,
        name: input.name,
        as_of: asOf,
        metadata: input.metadata ?? {},
        created_at: at,
      }
      await store.datasets.createExperiment(e)
      return experimentView(e)
    },

    async list(query, scope) {
      const { total, items } = await store.datasets.listExperiments({
        project_id: scope ?? query.project_id,
        dataset_id: query.dataset_id,
        name: query.name,
        limit: query.limit ?? 50,
      })
      return { total, items: items.map(experimentView) }
    },

    async get(experimentId, scope) {
      return detail(await visible(experimentId, scope))
    },

    async compare(idList, scope) {
      const ids = idList.split(',').map((id) => id.trim())
      if (ids.length < 2 || ids.length > COMPARE_LIMIT || ids.some((id) => id === '')) {
        throw new InvalidInput(`querystring/ids must name 2 to ${COMPARE_LIMIT} experiments, comma-separated`)
      }
      if (new Set(ids).size !== ids.length) throw new InvalidInput('querystring/ids names an experiment twice')
      const details = await Promise.all(ids.map(async (id) => detail(await visible(id, scope))))
      // Rows: every item of any of the runs, in the baseline's order, then the items only later runs have.
      const rows = new Map<string, { input: unknown; expected_output: unknown }>()
      for (const d of details) {
        for (const item of d.items) {
          if (!rows.has(item.dataset_item_id)) rows.set(item.dataset_item_id, item)
        }
      }
      const runsOf = details.map((d) => new Map(d.items.map((i) => [i.dataset_item_id, i.run])))
      const base = details[0] as ExperimentDetailResponse
      return {
        experiments: details.map((d) => d.experiment),
        aggregates: details.map((d) => d.aggregates),
        aggregate_deltas: details.map((d) => aggregateDelta(d.aggregates, base.aggregates)),
        items: [...rows].map(([id, item]) => {
          const runs = runsOf.map((m) => m.get(id) ?? null)
          return {
            dataset_item_id: id,
            input: item.input,
            expected_output: item.expected_output,
            runs,
            deltas: runs.map((run) => runDelta(run, runs[0] ?? null)),
          }
        }),
      }
    },

    async expectedOutput(trace) {
      if (!trace.experiment_id || !trace.dataset_item_id) return undefined
      const e = await store.datasets.getExperiment(trace.experiment_id)
      if (!e || e.project_id !== trace.project_id) return undefined
      const item = await store.datasets.getItem(e.dataset_id, trace.dataset_item_id, e.as_of)
      return item ? item.expected_output : undefined
    },
  }
}
