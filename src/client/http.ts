// The read client's HTTP: JSON requests to the Loupe REST API with Node's own fetch, and LoupeError for
// everything that does not end in a 2xx (including a server that cannot be reached).
import { describeNetworkError } from './retry.js'

/** A REST call that failed: `status` is the HTTP status, or null when the server was not reached at all. */
export class LoupeError extends Error {
  override readonly name = 'LoupeError'
  readonly status: number | null
  /** The server's error code (e.g. `LOUPE_PROJECT_EXISTS`), when it sent one. */
  readonly code: string | undefined
  /** The URL that was requested. */
  readonly url: string

  constructor(message: string, details: { status: number | null; code?: string; url: string; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.status = details.status
    this.code = details.code
    this.url = details.url
  }
}

export type QueryValue = string | number | boolean | Date | null | undefined

export interface HttpOptions {
  baseUrl: string
  credential: string | undefined
  timeoutMs: number
  fetch: typeof fetch
}

export interface RequestOptions {
  query?: Record<string, QueryValue> | object
  body?: unknown
  /** A body that is text of its own type (a JSONL or CSV import), sent as it is instead of `body`. */
  text?: { contentType: string; body: string }
  /** No time limit: the server's long-running routes (deletions, re-pricing), which answer once done. */
  longRunning?: boolean
}

/** `baseUrl` with exactly one trailing slash, so that relative paths keep any path prefix (a proxy's /loupe/). */
export function normalizeBaseUrl(baseUrl: string): string {
  const wrong = () =>
    new TypeError(`loupe: baseUrl must be an http(s) URL such as http://127.0.0.1:3000, got '${baseUrl}'`)
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw wrong()
  }
  // `localhost:3000` parses as a URL of the scheme `localhost:`: refused here, not sent elsewhere.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw wrong()
  url.search = ''
  url.hash = ''
  return url.href.endsWith('/') ? url.href : `${url.href}/`
}

export function createHttp(options: HttpOptions) {
  const { baseUrl, credential, timeoutMs } = options

  const unreachable = (err: unknown, url: URL) =>
    new LoupeError(`cannot reach the Loupe server at ${baseUrl} (${describeNetworkError(err)})`, {
      status: null,
      url: url.href,
      cause: err,
    })
  const parse = (text: string): unknown => {
    try {
      return text === '' ? undefined : JSON.parse(text)
    } catch {
      return undefined
    }
  }

  /** Sends one request; a non-2xx answer throws the server's message. `timeout`: false for a streamed answer. */
  async function open(method: string, path: string, { query, body, text }: RequestOptions, timeout: boolean) {
    const url = new URL(path, baseUrl)
    for (const [key, value] of Object.entries(query ?? {}) as [string, QueryValue][]) {
      if (value === undefined || value === null) continue
      url.searchParams.set(key, value instanceof Date ? value.toISOString() : String(value))
    }
    const headers: Record<string, string> = { accept: timeout ? 'application/json' : '*/*' }
    if (credential) headers.authorization = `Bearer ${credential}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (text !== undefined) headers['content-type'] = text.contentType
    let res: Response
    try {
      res = await options.fetch(url, {
        method,
        headers,
        body: text !== undefined ? text.body : body === undefined ? undefined : JSON.stringify(body),
        signal: timeout ? AbortSignal.timeout(timeoutMs) : undefined,
      })
    } catch (err) {
      throw unreachable(err, url)
    }
    if (!res.ok) {
      let text = ''
      try {
        text = await res.text()
      } catch (err) {
        throw unreachable(err, url)
      }
      const error = (parse(text) ?? {}) as { message?: unknown; code?: unknown }
      const message = typeof error.message === 'string' ? error.message : res.statusText
      throw new LoupeError(`${res.status} ${message}`, {
        status: res.status,
        code: typeof error.code === 'string' ? error.code : undefined,
        url: url.href,
      })
    }
    return { res, url }
  }

  /** One request whose answer is JSON (or 204: nothing). */
  async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const { res, url } = await open(method, path, options, !options.longRunning)
    let text: string
    try {
      text = await res.text()
    } catch (err) {
      throw unreachable(err, url)
    }
    // 204: done, nothing to say.
    if (res.status === 204) return undefined as T
    const json = parse(text)
    if (json === undefined) {
      throw new LoupeError(`the server at ${baseUrl} answered ${method} /${path} with something that is not JSON`, {
        status: res.status,
        url: url.href,
      })
    }
    return json as T
  }

  /** One request whose answer is read as it arrives (an export): its body, with no time limit. */
  async function stream(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const { res, url } = await open(method, path, options, false)
    if (!res.body) {
      throw new LoupeError(`the server at ${baseUrl} answered ${method} /${path} with no body`, {
        status: res.status,
        url: url.href,
      })
    }
    return res.body
  }

  return Object.assign(request, { stream })
}

export type Http = ReturnType<typeof createHttp>
