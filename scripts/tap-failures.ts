// npm test's recap of what failed, read from tap's output (TAP 14: subtests indented by 4 spaces, a failure's
// diagnosis in a YAML block after its `not ok` line).

/** The failed assertions of a run's output: the file, the names down to the assertion, and its diagnosis (cut). */
export function failuresOf(output: string): string[] {
  const lines = output.split('\n')
  const found: { key: string; text: string }[] = []
  /** The names of the subtests open at each depth (4 spaces a level). */
  const path: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const subtest = /^( *)# Subtest: (.*)$/.exec(line)
    if (subtest) {
      const depth = subtest[1]!.length / 4
      path.length = depth
      path[depth] = subtest[2]!
      continue
    }
    const failed = /^( *)not ok \d+ - (.*)$/.exec(line)
    if (!failed) continue
    const depth = failed[1]!.length / 4
    const key = [...path.slice(0, depth), failed[2]!.replace(/ # time=.*$/, '')].join(' > ')
    // A subtest's own failure line (after its children's) repeats them: only the innermost ones are told.
    if (found.some((f) => f.key.startsWith(`${key} > `))) continue
    const diagnosis: string[] = []
    if (!/^\s*---\s*$/.test(lines[i + 1] ?? '')) {
      found.push({ key, text: key })
      continue
    }
    for (let j = i + 2; j < lines.length && diagnosis.length < 16; j++) {
      if (/^\s*\.\.\.\s*$/.test(lines[j]!)) break
      diagnosis.push(lines[j]!.trimEnd())
    }
    found.push({ key, text: `${key}\n${diagnosis.join('\n')}` })
  }
  return found.map((f) => f.text)
}
