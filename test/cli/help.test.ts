// The CLI's help names only commands that exist: walks commander's tree of `loupe` and checks, for every command with
// subcommands, that the verbs its description lists ("list, get and delete traces") are its subcommands, and that
// every `loupe …` command line any help text mentions leads to a real command.
import type { Command } from 'commander'
import t from 'tap'
import { buildProgram } from '../../src/cli/program.js'

const io = { stdout: { write() {} }, stderr: { write() {} }, env: {}, interrupted: () => new Promise<void>(() => {}) }

/** Every command of the tree, with its path from the root (`loupe traces get`). */
function* walk(command: Command, path: string[] = ['loupe']): Generator<[string[], Command]> {
  yield [path, command]
  for (const sub of command.commands) yield* walk(sub, [...path, sub.name()])
}

/** A subcommand by its name or one of its aliases. */
const child = (command: Command, word: string) =>
  command.commands.find((c) => c.name() === word || c.aliases().includes(word))

/**
 * The verbs a description lists at the start of each of its clauses: "list, get and delete traces; …" → list, get,
 * delete. A clause that starts with one word only ("model prices …") lists nothing.
 */
export function listedVerbs(description: string): string[] {
  return description.split(/[;:]/).flatMap((clause) => {
    const list = /^\s*([a-z]+(?:, [a-z]+)*(?:,? and [a-z]+))\b/.exec(clause)?.[1]
    return list ? list.split(/,? and |, /) : []
  })
}

t.test('listedVerbs reads the verb list at the start of each clause, and only a list', async (t) => {
  t.same(listedVerbs('list, show and delete traces'), ['list', 'show', 'delete'])
  t.same(listedVerbs('list, create and delete alert rules; list what they fired'), ['list', 'create', 'delete'])
  t.same(listedVerbs('create and revoke keys'), ['create', 'revoke'])
  t.same(listedVerbs('model prices and re-pricing stored traces (admin)'), [])
  t.same(listedVerbs('conversations: the traces sharing a session_id'), [])
})

t.test('every verb a command group lists is one of its subcommands', async (t) => {
  const program = buildProgram(io as never)
  let groups = 0
  for (const [path, command] of walk(program)) {
    if (command.commands.length === 0) continue
    groups++
    for (const verb of listedVerbs(command.description())) {
      t.ok(child(command, verb), `\`${path.join(' ')}\` says "${verb}": \`${path.join(' ')} ${verb}\` exists`)
    }
  }
  t.ok(groups >= 6, `${groups} command groups checked`)
})

t.test('every `loupe …` command line in a help text leads to a command', async (t) => {
  const program = buildProgram(io as never)
  let mentions = 0
  for (const [path, command] of walk(program)) {
    const help = [
      command.helpInformation(),
      ...command.options.map((o) => o.description),
      ...command.registeredArguments.map((a) => a.description),
    ].join('\n')
    for (const match of help.matchAll(/\bloupe((?: [a-z][a-z-]*)+)/g)) {
      const [first, ...rest] = (match[1] ?? '').trim().split(' ')
      let at = child(program, first ?? '')
      t.ok(at, `help of \`${path.join(' ')}\` mentions \`loupe ${first}\`, a command`)
      // Words after the command are its subcommands as long as it has some (then arguments follow).
      for (const word of rest) {
        if (!at || at.commands.length === 0) break
        const next = child(at, word)
        t.ok(next, `help of \`${path.join(' ')}\` mentions \`${match[0]}\`: \`${at.name()} ${word}\` exists`)
        at = next
      }
      mentions++
    }
  }
  t.ok(mentions > 10, `${mentions} mentions checked`)
})
