// loupe experiment run: a gate for CI. Runs a task module over a dataset as one experiment (through the SDK's
// runExperiment), prints its figures as a table, checks each --assert ("correctness >= 0.9", "cost <= 0.50") and,
// with --baseline, that no score and not the pass rate fell below an earlier run's; exits 1 when any check fails.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Command, InvalidArgumentError } from 'commander'
import type { ExperimentAggregates } from '../../../schemas/index.js'
import { type LocalEvaluator, Loupe, type RunExperimentOptions } from '../../client/index.js'
import type { CliContext, GlobalOptions } from '../context.js'
import { CliError } from '../errors.js'
import { table } from '../format.js'
import { integer } from '../options.js'

const OPERATORS = ['>=', '<=', '>', '<', '=='] as const
type Operator = (typeof OPERATORS)[number]

/** One --assert: a figure of the experiment, compared with a number. */
export interface Assertion {
  text: string
  figure: string
  op: Operator
  bound: number
}

/** `name op number`: a score's name, or one of the experiment's own figures (FIGURES). */
export function parseAssertion(text: string): Assertion {
  const match = /^\s*([A-Za-z0-9_.:-]+)\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text)
  if (!match) {
    throw new InvalidArgumentError(
      `--assert must read "<figure> <op> <number>" (e.g. "correctness >= 0.9"), got '${text}'.`,
    )
  }
  return { text: text.trim(), figure: match[1] as string, op: match[2] as Operator, bound: Number(match[3]) }
}

/** The experiment's own figures an assertion may name; any other name is a score's mean. */
const FIGURES: Record<string, (a: ExperimentAggregates) => number | null> = {
  pass_rate: (a) => a.pass_rate,
  cost: (a) => a.total_cost,
  tokens: (a) => a.total_tokens,
  latency: (a) => a.latency_mean,
  latency_p95: (a) => a.latency_p95,
  failed: (a) => a.failed,
  missing: (a) => a.missing,
}

export const figureOf = (a: ExperimentAggregates, figure: string): number | null =>
  FIGURES[figure]
    ? (FIGURES[figure] as (a: ExperimentAggregates) => number | null)(a)
    : (a.scores[figure]?.mean ?? null)

const holds = (value: number, op: Operator, bound: number) =>
  op === '>='
    ? value >= bound
    : op === '<='
      ? value <= bound
      : op === '>'
        ? value > bound
        : op === '<'
          ? value < bound
          : value === bound

/** Whether the assertion holds on these figures; a figure the run does not have never holds. */
export function checkAssertion(a: ExperimentAggregates, assertion: Assertion): { value: number | null; ok: boolean } {
  const value = figureOf(a, assertion.figure)
  return { value, ok: value !== null && holds(value, assertion.op, assertion.bound) }
}

/** The figures that fell from the baseline by more than `tolerance`: each score's mean, and the pass rate. */
export function regressions(current: ExperimentAggregates, baseline: ExperimentAggregates, tolerance: number) {
  const fell: { figure: string; baseline: number; current: number }[] = []
  const compare = (figure: string, now: number | undefined, before: number | undefined) => {
    if (now !== undefined && before !== undefined && now < before - tolerance) {
      fell.push({ figure, baseline: before, current: now })
    }
  }
  compare('pass_rate', current.pass_rate, baseline.pass_rate)
  for (const [name, s] of Object.entries(baseline.scores)) compare(name, current.scores[name]?.mean, s.mean)
  return fell
}

const show = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : String(Math.round(value * 1e6) / 1e6)

/** The task module: its default export (or `task`) is the task; its `evaluators` export, local evaluators. */
async function loadTask(path: string): Promise<Pick<RunExperimentOptions, 'task' | 'evaluators'>> {
  let module: Record<string, unknown>
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>
  } catch (err) {
    throw new CliError(`cannot load the task module ${path}: ${(err as Error).message}`, 2)
  }
  const task = module.default ?? module.task
  if (typeof task !== 'function') {
    throw new CliError(`${path} must export the task as its default export (a function of the input)`, 2)
  }
  return {
    task: task as RunExperimentOptions['task'],
    evaluators: module.evaluators as Record<string, LocalEvaluator> | undefined,
  }
}

export function addExperimentCommand(program: Command, { out, paint, json, client, io }: CliContext): void {
  const experiment = program.command('experiment').description('run experiments over datasets')
  experiment
    .command('run')
    .description('run a task over a dataset as one experiment; exit 1 when an assertion fails or a score regressed')
    .requiredOption('--dataset <name>', 'the dataset (its name or dataset_id)')
    .requiredOption('--task <file>', 'a module whose default export is the task (and `evaluators`, local evaluators)')
    .option('--name <name>', 'what is tried (default: the task file’s name)')
    .option(
      '--assert <check>',
      'e.g. "correctness >= 0.9", "cost <= 0.50" (figures: a score’s name, pass_rate, cost, tokens, latency, latency_p95, failed, missing); repeatable',
      (value: string, all: Assertion[]) => [...all, parseAssertion(value)],
      [] as Assertion[],
    )
    .option('--baseline <experiment>', 'an earlier experiment (id, or name: the newest of that name on the dataset)')
    .option('--tolerance <n>', 'how far a figure may fall below the baseline', Number.parseFloat, 0)
    .option('-c, --concurrency <n>', 'items run at once', integer('--concurrency', 1, 100), 4)
    .option('--api-key <key>', 'the project API key the runs are recorded with (or LOUPE_API_KEY)')
    .option('--json', 'print the experiment as JSON')
    .action(async (options, command: Command) => {
      const { url } = command.optsWithGlobals<GlobalOptions>()
      const apiKey = options.apiKey ?? io.env.LOUPE_API_KEY
      if (!apiKey) throw new CliError('experiment run needs a project API key: --api-key or LOUPE_API_KEY', 2)
      const { task, evaluators } = await loadTask(options.task)
      const reader = client(command)
      const loupe = new Loupe({ baseUrl: url, apiKey, onWarning: (m) => io.stderr.write(`loupe: ${m}\n`) })
      let summary: Awaited<ReturnType<Loupe['runExperiment']>>
      try {
        summary = await loupe.runExperiment({
          dataset: options.dataset,
          name: options.name ?? options.task.replace(/^.*[\\/]/, '').replace(/\.[cm]?[jt]s$/, ''),
          task,
          evaluators,
          concurrency: options.concurrency,
        })
      } finally {
        await loupe.shutdown({ timeoutMs: 5000 })
      }
      const current = summary.aggregates

      let baseline: { experiment_id: string; name: string; aggregates: ExperimentAggregates } | undefined
      if (options.baseline) {
        const named = await reader.experiments.list({
          dataset_id: summary.experiment.dataset_id,
          name: options.baseline,
        })
        const candidate = named.items.find((e) => e.experiment_id !== summary.experiment.experiment_id)
        const id = candidate?.experiment_id ?? options.baseline
        const found = await reader.experiments.get(id)
        baseline = { experiment_id: id, name: found.experiment.name, aggregates: found.aggregates }
      }

      const checks = (options.assert as Assertion[]).map((a) => ({ ...a, ...checkAssertion(current, a) }))
      const fell = baseline ? regressions(current, baseline.aggregates, options.tolerance) : []
      if (options.json) json({ ...summary, assertions: checks, regressions: fell })
      else {
        out(
          `${paint('bold', summary.experiment.name)}  experiment ${summary.experiment.experiment_id}  ` +
            `${current.items} items, ${current.failed} failed, ${current.missing} not run\n\n`,
        )
        const figures = ['pass_rate', 'cost', 'tokens', 'latency', 'latency_p95', ...Object.keys(current.scores)]
        const rows = figures.map((figure) => ({
          figure,
          value: figureOf(current, figure),
          base: baseline ? figureOf(baseline.aggregates, figure) : undefined,
        }))
        out(
          table(
            rows,
            [
              { header: 'figure', value: (r) => r.figure },
              { header: 'value', value: (r) => show(r.value), align: 'right' },
              ...(baseline
                ? [
                    {
                      header: `baseline (${baseline.name})`,
                      value: (r: (typeof rows)[number]) => show(r.base),
                      align: 'right' as const,
                    },
                    {
                      header: 'Δ',
                      value: (r: (typeof rows)[number]) =>
                        r.value === null || r.base === null || r.base === undefined ? '—' : show(r.value - r.base),
                      align: 'right' as const,
                    },
                  ]
                : []),
            ],
            io.stdout,
            paint,
          ),
        )
        for (const c of checks) {
          out(`${c.ok ? paint('green', 'pass') : paint('red', 'FAIL')}  ${c.text}  (${show(c.value)})\n`)
        }
        for (const r of fell) {
          out(`${paint('red', 'REGRESSED')}  ${r.figure}: ${show(r.current)} < baseline ${show(r.baseline)}\n`)
        }
      }
      const failed = checks.filter((c) => !c.ok).length
      if (failed > 0 || fell.length > 0) {
        throw new CliError(
          [failed > 0 ? `${failed} assertion(s) failed` : '', fell.length > 0 ? `${fell.length} regression(s)` : '']
            .filter(Boolean)
            .join(', '),
        )
      }
    })
}
