// A local stand-in for an OpenAI-compatible endpoint, answering the capture scenarios the way the real API does:
// the served model is a dated snapshot of the one asked for, a stream reports usage only when asked to
// (`stream_options.include_usage`), an unknown model is a 404, and a request offering tools is answered with a tool
// call until the tool's result is in the conversation.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** What the scenarios ask and what this server answers; the capture runners and the replay tests share these. */
export const SCENARIO_TEXT = {
  system: 'Be brief.',
  chatQuestion: 'What is the capital of France?',
  chatAnswer: 'The capital of France is Paris.',
  streamQuestion: 'Name the three primary colours.',
  streamAnswer: 'Red, yellow and blue.',
  failQuestion: 'Is anyone there?',
  embeddingInput: 'Loupe records calls to language models.',
  agentQuestion: 'Will it rain in Paris tomorrow?',
  agentAnswer: 'Yes: 80% chance of rain in Paris tomorrow.',
} as const

/** A served snapshot for a requested model name, as the real API answers. */
const SNAPSHOTS: Record<string, string> = { 'gpt-4o-mini': 'gpt-4o-mini-2024-07-18' }
/** Every embedding this server returns (a real one has hundreds of dimensions; four show the shape). */
const VECTOR = [0.0123, -0.0456, 0.0789, 0.0012]
const KNOWN_MODELS = new Set(['gpt-4o-mini', 'text-embedding-3-small'])

type Json = Record<string, unknown>
interface ChatRequest {
  model: string
  messages: { role: string; content?: unknown }[]
  tools?: unknown[]
  stream?: boolean
  stream_options?: { include_usage?: boolean }
}

function send(res: ServerResponse, status: number, body: Json) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json
}

const textOf = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : ''

export function startFakeOpenAi(): Promise<{ server: Server; url: string }> {
  let sequence = 0
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req)
      const model = String(body.model)
      if (!KNOWN_MODELS.has(model)) {
        send(res, 404, {
          error: {
            message: `The model \`${model}\` does not exist or you do not have access to it.`,
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        })
        return
      }
      const served = SNAPSHOTS[model] ?? model
      sequence++
      if (req.url?.endsWith('/embeddings')) {
        const inputs = Array.isArray(body.input) ? body.input : [body.input]
        send(res, 200, {
          object: 'list',
          data: inputs.map((_, index) => ({
            object: 'embedding',
            index,
            // The OpenAI SDK asks for base64 (little-endian float32) and decodes it itself.
            embedding:
              body.encoding_format === 'base64'
                ? Buffer.from(new Float32Array(VECTOR).buffer).toString('base64')
                : VECTOR,
          })),
          model: served,
          usage: { prompt_tokens: 7 * inputs.length, total_tokens: 7 * inputs.length },
        })
        return
      }
      if (req.url?.endsWith('/responses')) {
        // The Responses API, not streamed: one output message answering the chat question.
        send(res, 200, {
          id: `resp_loupe${String(sequence).padStart(4, '0')}`,
          object: 'response',
          created_at: 1_795_268_700,
          status: 'completed',
          model: served,
          instructions: body.instructions ?? null,
          output: [
            {
              type: 'message',
              id: `msg_loupe${String(sequence).padStart(4, '0')}`,
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: SCENARIO_TEXT.chatAnswer, annotations: [] }],
            },
          ],
          usage: { input_tokens: 24, output_tokens: 8, total_tokens: 32 },
        })
        return
      }
      if (!req.url?.endsWith('/chat/completions')) {
        send(res, 404, { error: { message: `Unknown path ${req.url}`, type: 'invalid_request_error' } })
        return
      }
      const chat = body as unknown as ChatRequest
      const id = `chatcmpl-loupe${String(sequence).padStart(4, '0')}`
      const created = 1_795_268_700
      const question = textOf(chat.messages.findLast((m) => m.role === 'user')?.content)
      const toolAnswered = chat.messages.some((m) => m.role === 'tool')
      let message: Json
      let usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }
      let finish = 'stop'
      if (chat.tools && chat.tools.length > 0 && !toolAnswered) {
        message = {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_weather_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
          ],
        }
        usage = { prompt_tokens: 61, completion_tokens: 17, total_tokens: 78 }
        finish = 'tool_calls'
      } else if (toolAnswered) {
        message = { role: 'assistant', content: SCENARIO_TEXT.agentAnswer }
        usage = { prompt_tokens: 96, completion_tokens: 14, total_tokens: 110 }
      } else if (question === SCENARIO_TEXT.streamQuestion) {
        message = { role: 'assistant', content: SCENARIO_TEXT.streamAnswer }
        usage = { prompt_tokens: 21, completion_tokens: 6, total_tokens: 27 }
      } else {
        message = { role: 'assistant', content: SCENARIO_TEXT.chatAnswer }
        usage = { prompt_tokens: 24, completion_tokens: 8, total_tokens: 32 }
      }

      if (!chat.stream) {
        send(res, 200, {
          id,
          object: 'chat.completion',
          created,
          model: served,
          choices: [{ index: 0, message: { refusal: null, ...message }, logprobs: null, finish_reason: finish }],
          usage,
          system_fingerprint: 'fp_loupe',
        })
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const chunk = (choices: unknown[], extra: Json = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: served, system_fingerprint: 'fp_loupe', choices, ...extra })}\n\n`,
        )
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])
      const text = String(message.content ?? '')
      for (const piece of text.match(/\S+\s*/g) ?? []) {
        chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }])
      }
      chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }])
      if (chat.stream_options?.include_usage) chunk([], { usage })
      res.end('data: [DONE]\n\n')
    })().catch((err: unknown) => send(res, 500, { error: { message: String(err), type: 'server_error' } }))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      resolve({ server, url: `http://127.0.0.1:${port}/v1` })
    })
  })
}
