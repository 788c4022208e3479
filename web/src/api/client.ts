// The one typed door to Loupe's REST API: same origin, the credential of this browser session (protected mode) as
// `Authorization: Bearer`, errors as ApiError. Response types are the server's own (schemas/), never re-declared.
import type { ApiError as ApiErrorBody } from '../../../schemas/index.js'

const TOKEN_KEY = 'loupe.token'

/** An answer that was not 2xx (status 0: the server could not be reached). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

type Listener = () => void
const listeners = new Set<Listener>()
let token: string | null = readStoredToken()

function readStoredToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

/** The credential kept for this browser session (closing the tab forgets it). */
export const credential = {
  get: () => token,
  set(value: string | null) {
    token = value
    try {
      if (value === null) sessionStorage.removeItem(TOKEN_KEY)
      else sessionStorage.setItem(TOKEN_KEY, value)
    } catch {
      // Storage may be off (private mode): the credential then lives until the page is closed.
    }
    for (const listener of listeners) listener()
  },
  subscribe(listener: Listener) {
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  },
}

export type Query = Record<string, string | number | boolean | null | undefined>

/** `path?query`, leaving out empty values. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  }
  const text = params.toString()
  return text === '' ? path : `${path}?${text}`
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

interface RequestOptions {
  query?: Query
  /** A JSON body. */
  body?: unknown
  /** A text body of its own media type (an import's JSONL or CSV). */
  text?: { contentType: string; body: string }
  signal?: AbortSignal
}

/** The answer of one request with this session's credential, whatever it holds; not 2xx: an ApiError. */
async function request(method: Method, path: string, options: RequestOptions, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept }
  if (token) headers.authorization = `Bearer ${token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.text) headers['content-type'] = options.text.contentType
  let res: Response
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.text ? options.text.body : options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new ApiError(0, 'Loupe could not be reached')
  }
  if (!res.ok) {
    const text = await res.text()
    let body: Partial<ApiErrorBody> | null = null
    try {
      body = text === '' ? null : (JSON.parse(text) as Partial<ApiErrorBody>)
    } catch {
      // Not the API's error body (a proxy's page): the status text says enough.
    }
    throw new ApiError(res.status, body?.message ?? res.statusText, body?.code)
  }
  return res
}

export async function api<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const text = await (await request(method, path, options, 'application/json')).text()
  return (text === '' ? null : JSON.parse(text)) as T
}

/**
 * Saves the answer of a GET as a file: fetched with this session's credential (a plain link would send none), then
 * handed to the browser as a download.
 */
export async function download(path: string, query: Query, filename: string): Promise<void> {
  const blob = await (await request('GET', path, { query }, '*/*')).blob()
  const href = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = href
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}
