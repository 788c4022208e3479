// The LLM judge: any OpenAI-compatible chat completions API, asked for a structured verdict `{score, reasoning}`.
// It is asked with `response_format` `json_schema`; from a model that only answers text, the first JSON object of
// its answer is read. An answer that is not a verdict (not JSON, a score out of range) is asked again once, with
// the error; a 429, a 5xx or a timeout is asked again after a pause (the judge's `Retry-After` when it gives one).

/** Where the judge is and which model answers. */
export interface JudgeEndpoint {
  baseUrl: string
  apiKey: string | null
  model: string
  timeoutMs: number
}

/** What a verdict's score must be: a number in a range, a yes/no, or one of some categories. */
export type VerdictShape =
  | { data_type: 'numeric'; min: number; max: number }
  | { data_type: 'boolean' }
  | { data_type: 'categorical'; categories: readonly string[] }

/** A verdict read from the judge: its score (a number, true/false, or a category) and why. */
export interface Verdict {
  score: number | boolean | string
  reasoning: string
}

/** What asking the judge gave: the verdict, or why there is none; the raw answer, the tokens used, the attempts. */
export interface JudgeOutcome {
  verdict: Verdict | null
  error: string | null
  raw: string | null
  usage: { prompt_tokens: number; completion_tokens: number }
  attempts: number
  /** The judge could not be asked (unreachable, 429, 5xx, timeouts): worth asking again later, unlike a bad answer. */
  transient: boolean
  /** How long the judge asked to be left alone (its last Retry-After), when it said. */
  retryAfterMs: number | null
}

export interface JudgeOptions {
  /** Attempts for an answer that did not come (429, 5xx, timeout, refused connection); default 3. */
  transportAttempts?: number
  /** The first pause between such attempts (doubling); a Retry-After the judge gives wins, up to maxWaitMs. */
  retryBaseMs?: number
  maxWaitMs?: number
  fetch?: typeof fetch
  sleep?: (ms: number) => Promise<void>
}

/** The JSON Schema of a verdict of this shape: what `response_format` asks for. */
export function verdictSchema(shape: VerdictShape): object {
  const score =
    shape.data_type === 'numeric'
      ? { type: 'number', minimum: shape.min, maximum: shape.max }
      : shape.data_type === 'boolean'
        ? { type: 'boolean' }
        : { type: 'string', enum: [...shape.categories] }
  return {
    type: 'object',
    properties: { score, reasoning: { type: 'string' } },
    required: ['score', 'reasoning'],
    additionalProperties: false,
  }
}

/** The first JSON object in a text (a model may wrap it in prose or a code fence); null when there is none. */
export function firstJsonObject(text: string): unknown {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0
    let inString = false
    for (let i = start; i < text.length; i++) {
      const c = text[i]
      if (inString) {
        if (c === '\\') i++
        else if (c === '"') inString = false
      } else if (c === '"') inString = true
      else if (c === '{') depth++
      else if (c === '}' && --depth === 0) {
        try {
          return JSON.parse(text.slice(start, i + 1))
        } catch {
          break
        }
      }
    }
  }
  return null
}

/** A verdict from an answer's text, or why the text is not one of this shape. */
export function readVerdict(text: string, shape: VerdictShape): Verdict | string {
  const found = firstJsonObject(text)
  if (found === null || typeof found !== 'object' || Array.isArray(found)) {
    return 'the answer holds no JSON object'
  }
  const { score, reasoning } = found as Record<string, unknown>
  if (typeof reasoning !== 'string') return 'the answer has no "reasoning" text'
  switch (shape.data_type) {
    case 'numeric':
      if (typeof score !== 'number' || !Number.isFinite(score)) return '"score" is not a number'
      if (score < shape.min || score > shape.max) return `"score" ${score} is not between ${shape.min} and ${shape.max}`
      return { score, reasoning }
    case 'boolean':
      if (typeof score !== 'boolean') return '"score" is not true or false'
      return { score, reasoning }
    case 'categorical':
      if (typeof score !== 'string' || !shape.categories.includes(score)) {
        return `"score" is not one of ${shape.categories.map((c) => JSON.stringify(c)).join(', ')}`
      }
      return { score, reasoning }
  }
}

/** A transport failure worth asking again after a pause; `retryAfterMs` when the judge said how long. */
class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }
}

/** Retry-After as ms: delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - now) : null
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string }

/** Asks the judge once for a chat completion: its text and usage. Throws Transient, or Error for a refusal. */
async function complete(
  endpoint: JudgeEndpoint,
  messages: Message[],
  shape: VerdictShape,
  send: typeof fetch,
): Promise<{ text: string; usage: JudgeOutcome['usage'] }> {
  let res: Response
  try {
    res = await send(`${endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: endpoint.model,
        messages,
        temperature: 0,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'verdict', strict: true, schema: verdictSchema(shape) },
        },
      }),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    })
  } catch (err) {
    const name = (err as Error).name
    throw new Transient(
      name === 'TimeoutError' || name === 'AbortError'
        ? `the judge did not answer within ${endpoint.timeoutMs} ms`
        : `the judge could not be reached: ${(err as Error).message}`,
    )
  }
  const body = await res.text().catch(() => '')
  if (res.status === 429 || res.status >= 500) {
    throw new Transient(`the judge answered ${res.status}`, retryAfterMs(res.headers.get('retry-after')))
  }
  if (!res.ok) throw new Error(`the judge refused the question: ${res.status} ${body.slice(0, 200)}`)
  let parsed: { choices?: { message?: { content?: unknown } }[]; usage?: Record<string, unknown> }
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new Error('the judge’s answer is not a chat completion (not JSON)')
  }
  const content = parsed.choices?.[0]?.message?.content
  if (typeof content !== 'string') throw new Error('the judge’s answer is not a chat completion (no message text)')
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)
  return {
    text: content,
    usage: {
      prompt_tokens: count(parsed.usage?.prompt_tokens),
      completion_tokens: count(parsed.usage?.completion_tokens),
    },
  }
}

/** Asks the judge for a verdict on `prompt` (the rendered template). Never throws: a failure is the outcome's error. */
export async function askJudge(
  endpoint: JudgeEndpoint,
  prompt: string,
  shape: VerdictShape,
  options: JudgeOptions = {},
): Promise<JudgeOutcome> {
  const {
    transportAttempts = 3,
    retryBaseMs = 1000,
    maxWaitMs = 60_000,
    fetch: send = fetch,
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  } = options
  const messages: Message[] = [
    {
      role: 'system',
      content:
        'You are an evaluator. Answer with one JSON object only: {"score": …, "reasoning": "…"}, the score as the ' +
        `schema says: ${JSON.stringify(verdictSchema(shape))}`,
    },
    { role: 'user', content: prompt },
  ]
  const usage = { prompt_tokens: 0, completion_tokens: 0 }
  const answered = { transient: false, retryAfterMs: null }
  let attempts = 0
  let raw: string | null = null
  /** One answer, asked again after a pause on a transient failure. */
  const answer = async (): Promise<string> => {
    for (let transport = 1; ; transport++) {
      attempts++
      try {
        const got = await complete(endpoint, messages, shape, send)
        usage.prompt_tokens += got.usage.prompt_tokens
        usage.completion_tokens += got.usage.completion_tokens
        return got.text
      } catch (err) {
        if (!(err instanceof Transient) || transport >= transportAttempts) throw err
        await sleep(Math.min(maxWaitMs, err.retryAfterMs ?? retryBaseMs * 2 ** (transport - 1)))
      }
    }
  }
  try {
    // An answer that is not a verdict is asked again once, with the error.
    for (let round = 1; ; round++) {
      raw = await answer()
      const verdict = readVerdict(raw, shape)
      if (typeof verdict !== 'string') return { verdict, error: null, raw, usage, attempts, ...answered }
      if (round >= 2)
        return {
          verdict: null,
          error: `the judge gave no usable verdict: ${verdict}`,
          raw,
          usage,
          attempts,
          ...answered,
        }
      messages.push(
        { role: 'assistant', content: raw },
        { role: 'user', content: `That answer is not usable: ${verdict}. Answer again with the JSON object only.` },
      )
    }
  } catch (err) {
    const transient = err instanceof Transient
    return {
      verdict: null,
      error: (err as Error).message,
      raw,
      usage,
      attempts,
      transient,
      retryAfterMs: transient ? err.retryAfterMs : null,
    }
  }
}
