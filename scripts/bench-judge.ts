// The judge of npm run bench's evaluator rows: an OpenAI-compatible chat completions endpoint in a process of its own
// (the bench's own loop is held by autocannon for whole seconds) that answers every question after JUDGE_DELAY_MS
// with a verdict, as a remote model would. Prints its address once it listens.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const delayMs = Number(process.env.JUDGE_DELAY_MS ?? 200)
const answer = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: '{"score": 0.8, "reasoning": "fine"}' } }],
  usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 },
})
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () =>
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(answer)
    }, delayMs),
  )
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`)
})
