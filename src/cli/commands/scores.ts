// loupe scores list | add: the filters of GET /scores as options, a table or the API's JSON; one score recorded
// through POST /scores.
import { type Command, InvalidArgumentError, Option } from 'commander'
import { SCORE_DATA_TYPES, SCORE_SOURCES, type ScoreDataType } from '../../../schemas/index.js'
import type { Score, ScoreInput } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { formatTimestamp, oneLine } from '../format.js'
import { integer } from '../options.js'

/**
 * `--value` as the API takes it: `true`/`false` a boolean, a number a number, anything else a category — unless
 * `--data-type` says which (a categorical `5` stays the label "5").
 */
export function scoreValue(text: string, dataType: ScoreDataType | undefined): ScoreInput['value'] {
  const value = text.trim()
  if (value === '') throw new InvalidArgumentError('--value must not be empty.')
  if (dataType === 'categorical') return value
  if (value === 'true' || value === 'false') return value === 'true'
  const n = Number(value)
  if (Number.isFinite(n)) return n
  if (dataType === 'numeric')
    throw new InvalidArgumentError(`--value must be a number for a numeric score, got '${text}'.`)
  if (dataType === 'boolean')
    throw new InvalidArgumentError(`--value must be true or false for a boolean score, got '${text}'.`)
  return value
}

/** A score's value as a person reads it: a category's or a boolean's label, else the number. */
const shownValue = (s: Score) => (s.data_type === 'numeric' ? String(s.value) : (s.label ?? String(s.value)))

/** What a score is of: its trace (and step), or its session. */
const scored = (s: Score) =>
  s.trace_id === null
    ? `session ${s.session_id}`
    : s.step_index === null
      ? s.trace_id
      : `${s.trace_id} #${s.step_index}`

export function addScoresCommand(program: Command, { out, paint, json, client, printList }: CliContext): void {
  // loupe scores …
  const scores = program.command('scores').description('list and add scores of traces')
  scores
    .command('list')
    .description('list scores, newest first')
    .option('-p, --project <project_id>', 'only this project')
    .option('-t, --trace <trace_id>', 'only the scores of this trace (and of its steps)')
    .option('--session <session_id>', 'only the scores of this session (and of its traces)')
    .option('--name <name>', 'only scores of this name')
    .addOption(new Option('--source <source>', 'only scores from this source').choices(SCORE_SOURCES))
    .option('--author <author>', 'only scores by this author')
    .option('--since <time>', 'created at or after (ISO 8601 or epoch)')
    .option('--until <time>', 'created before (ISO 8601 or epoch)')
    .option('-n, --limit <n>', 'at most n scores (1–1000)', integer('--limit', 1, 1000), 20)
    .option('--cursor <cursor>', 'the page after this one (printed below each page that has more)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).scores.list({
        project_id: options.project,
        trace_id: options.trace,
        session_id: options.session,
        name: options.name,
        source: options.source,
        author: options.author,
        since: options.since,
        until: options.until,
        limit: options.limit,
        cursor: options.cursor,
      })
      const more = list.next_cursor ? `; next page: --cursor ${list.next_cursor}` : ''
      printList(
        options,
        list,
        [
          { header: 'CREATED (UTC)', value: (s) => formatTimestamp(s.created_at) },
          { header: 'NAME', value: (s) => s.name, style: () => 'bold' },
          { header: 'VALUE', value: shownValue, align: 'right' },
          { header: 'SOURCE', value: (s) => s.source },
          { header: 'AUTHOR', value: (s) => s.author ?? '-' },
          { header: 'PROJECT', value: (s) => s.project_id, style: () => 'cyan' },
          { header: 'TRACE', value: scored, style: () => 'dim' },
          { header: 'COMMENT', value: (s) => oneLine(s.comment ?? ''), flex: true },
        ],
        'No scores match.\n',
        `${list.items.length} of ${list.total} score(s), newest first${more}\n`,
      )
    })

  scores
    .command('add')
    .description('record a score of a trace, or of one of its steps')
    .requiredOption('-t, --trace <trace_id>', 'the trace scored')
    .requiredOption('--name <name>', 'the score’s name, e.g. helpfulness')
    .requiredOption('--value <value>', 'a number, true or false, or a category')
    .option('--step <index>', 'a step of the trace (0-based)', integer('--step', 0, 999))
    .option('--comment <text>', 'why this score')
    .option('--author <name>', 'who gives it')
    .addOption(new Option('--source <source>', 'where it comes from (default: api)').choices(SCORE_SOURCES))
    .addOption(
      new Option('--data-type <type>', 'how to read --value (default: from the value)').choices(SCORE_DATA_TYPES),
    )
    .option('--id <score_id>', 'its score_id: sending the same score again is then harmless')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const dataType = options.dataType as ScoreDataType | undefined
      let value: ScoreInput['value']
      try {
        value = scoreValue(options.value, dataType)
      } catch (err) {
        command.error(`error: ${(err as Error).message}`, { exitCode: 2 })
      }
      const score = await client(command).score({
        score_id: options.id,
        trace_id: options.trace,
        step_index: options.step,
        name: options.name,
        data_type: dataType,
        value,
        comment: options.comment,
        author: options.author,
        source: options.source,
      })
      if (options.json) return json(score)
      out(
        `Recorded ${paint('bold', score.name)} = ${shownValue(score)} of ${scored(score)} ` +
          `(${score.source}; score_id ${score.score_id}).\n`,
      )
    })
}
