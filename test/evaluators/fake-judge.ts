// A fake OpenAI-compatible judge on 127.0.0.1 for the tests: each question gets the next scripted reply — an answer,
// a slow answer, a 429 with Retry-After, a 500, no answer at all, text that is not a verdict — and every request is
// kept to be looked at.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export type Reply =
  | { answer: string; delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; body?: string; retryAfter?: string }
  /** Holds the request open: the client's timeout must end it. */
  | { hang: true }

export interface FakeJudge {
  url: string
  /** The bodies the judge was sent, and their Authorization headers. */
  requests: { body: Record<string, unknown>; authorization: string | undefined }[]
  /** Queues replies; once they are used up, every question gets `fallback`. */
  script(...replies: Reply[]): void
  fallback: Reply
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

export async function startFakeJudge(t: Test): Promise<FakeJudge> {
  const queue: Reply[] = []
  const held = new Set<() => void>()
  const judge: FakeJudge = {
    url: '',
    requests: [],
    script: (...replies) => queue.push(...replies),
    fallback: { answer: '{"score": 1, "reasoning": "fine"}' },
  }
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>
    judge.requests.push({ body, authorization: req.headers.authorization })
    const reply = queue.shift() ?? judge.fallback
    if ('hang' in reply) {
      held.add(() => res.destroy())
      return
    }
    if ('status' in reply) {
      res.writeHead(reply.status, reply.retryAfter ? { 'retry-after': reply.retryAfter } : {})
      res.end(reply.body ?? '{"error":{"message":"scripted"}}')
      return
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs))
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: reply.answer }, finish_reason: 'stop' }],
        usage: reply.usage ?? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  judge.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  t.teardown(async () => {
    for (const end of held) end()
    await new Promise((resolve) => server.close(resolve))
  })
  return judge
}
