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

export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new ApiError(0, 'Loupe could not be reached')
  }
  const text = await res.text()
  const json = text === '' ? null : (JSON.parse(text) as unknown)
  if (!res.ok) {
    const body = json as Partial<ApiErrorBody> | null
    throw new ApiError(res.status, body?.message ?? res.statusText, body?.code)
  }
  return json as T
}
