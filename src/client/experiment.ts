// runExperiment: a task run over a dataset, each item inside a trace that carries the experiment's id and the item's;
// local evaluators (plain functions) score each run; then it waits for the server's evaluations of those traces and
// answers the experiment's results. A task that throws is a failed item: the run goes on.
import type { DatasetItem, Experiment, ExperimentDetailResponse } from '../../schemas/index.js'
import type { TraceContext } from './types.js'

/** What a local evaluator gives: a number or a boolean (a score of the evaluator's name), a score, several, or none. */
export type EvaluatorResult =
  | number
  | boolean
  | { name?: string; value: number | boolean | string; comment?: string }
  | { name?: string; value: number | boolean | string; comment?: string }[]
  | null
  | undefined

/** A local evaluator: a plain function of a run, returning its scores. */
export type LocalEvaluator = (run: {
  input: unknown
  output: unknown
  expected: unknown
  metadata: Record<string, unknown>
  item: DatasetItem
  error: string | null
}) => EvaluatorResult | Promise<EvaluatorResult>

export interface RunExperimentOptions {
  /** The dataset: its id, or its name (unique in its project). */
  dataset: string
  /** What is tried (e.g. `gpt-4o-mini prompt v7`). */
  name: string
  /** Called with each item's input; what it returns is the run's output. A throw fails the item, not the run. */
  task: (input: unknown, context: { item: DatasetItem; trace: TraceContext }) => unknown | Promise<unknown>
  /** Local evaluators by score name: each run's scores. */
  evaluators?: Record<string, LocalEvaluator>
  /** Items run at once (default 4). */
  concurrency?: number
  metadata?: Record<string, unknown>
  /** How long to wait for the server's evaluations once every run is delivered (default 60 s). */
  waitMs?: number
  /** How often to ask meanwhile (default 1 s). */
  pollMs?: number
}

export interface ExperimentSummary extends ExperimentDetailResponse {
  /** Items whose task threw. */
  task_errors: number
  /** Local evaluators that threw (their scores are missing). */
  evaluator_errors: number
}

/** What runExperiment needs of the client: the calls it makes, nothing else. */
export interface ExperimentClient {
  findDataset(idOrName: string): Promise<{ dataset_id: string }>
  createExperiment(body: { dataset_id: string; name: string; metadata?: Record<string, unknown> }): Promise<Experiment>
  items(datasetId: string, asOf: string): Promise<DatasetItem[]>
  trace<T>(
    options: {
      name: string
      prompt: string
      experimentId: string
      datasetItemId: string
      metadata: Record<string, unknown>
    },
    fn: (t: TraceContext) => Promise<T>,
  ): Promise<T>
  flush(): Promise<boolean>
  getExperiment(experimentId: string): Promise<ExperimentDetailResponse>
  warn(message: string): void
}

/** The scores of one evaluator's result. */
function scoresOf(name: string, result: EvaluatorResult) {
  if (result === null || result === undefined) return []
  if (typeof result === 'number' || typeof result === 'boolean') return [{ name, value: result }]
  return (Array.isArray(result) ? result : [result]).map((s) => ({ ...s, name: s.name ?? name }))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function runExperiment(
  client: ExperimentClient,
  options: RunExperimentOptions,
): Promise<ExperimentSummary> {
  const dataset = await client.findDataset(options.dataset)
  const experiment = await client.createExperiment({
    dataset_id: dataset.dataset_id,
    name: options.name,
    metadata: options.metadata,
  })
  const items = await client.items(dataset.dataset_id, experiment.as_of)
  let taskErrors = 0
  let evaluatorErrors = 0

  async function runItem(item: DatasetItem) {
    let output: unknown
    let error: string | null = null
    let context: TraceContext | undefined
    try {
      output = await client.trace(
        {
          name: options.name,
          prompt: typeof item.input === 'string' ? item.input : (JSON.stringify(item.input) ?? ''),
          experimentId: experiment.experiment_id,
          datasetItemId: item.dataset_item_id,
          metadata: { experiment: options.name },
        },
        async (t) => {
          context = t
          return options.task(item.input, { item, trace: t })
        },
      )
    } catch (err) {
      taskErrors++
      error = err instanceof Error ? err.message : String(err)
    }
    for (const [name, evaluate] of Object.entries(options.evaluators ?? {})) {
      try {
        const result = await evaluate({
          input: item.input,
          output,
          expected: item.expected_output,
          metadata: item.metadata,
          item,
          error,
        })
        for (const score of scoresOf(name, result)) context?.score({ ...score, source: 'evaluator', author: name })
      } catch (err) {
        evaluatorErrors++
        client.warn(`evaluator '${name}' failed on item ${item.dataset_item_id}: ${(err as Error)?.message ?? err}`)
      }
    }
  }

  // A pool of `concurrency` workers, each taking the next item.
  let next = 0
  const workers = Array.from({ length: Math.max(1, Math.floor(options.concurrency ?? 4)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as DatasetItem
      await runItem(item)
    }
  })
  await Promise.all(workers)
  if (!(await client.flush())) client.warn('some runs of the experiment were not delivered')

  // The runs are stored; the server's evaluations of them may still be coming.
  const deadline = Date.now() + (options.waitMs ?? 60_000)
  let detail = await client.getExperiment(experiment.experiment_id)
  while (detail.pending_evaluations > 0 && Date.now() < deadline) {
    await sleep(options.pollMs ?? 1000)
    detail = await client.getExperiment(experiment.experiment_id)
  }
  if (detail.pending_evaluations > 0) {
    client.warn(`${detail.pending_evaluations} evaluation(s) of the experiment were still pending`)
  }
  return { ...detail, task_errors: taskErrors, evaluator_errors: evaluatorErrors }
}
