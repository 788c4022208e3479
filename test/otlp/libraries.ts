// Replaying what real instrumentation libraries exported (captured by scripts/capture-otlp-fixtures.ts, or written by
// hand from a library's published conventions) into a test app, and reading back the trace each scenario made.
import { readdirSync, readFileSync } from 'node:fs'
import type { Trace } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { postOtlp } from './http.js'

export interface LibraryFixture {
  library: string
  scenario: string
  exports: Record<string, unknown>[]
}

const DIR = new URL('../fixtures/otlp/libraries/', import.meta.url)

/** Every fixture of one library folder (`openinference`, `openllmetry`, `vercel-ai`, `python-…`), by scenario. */
export function libraryFixtures(folder: string): Map<string, LibraryFixture> {
  const dir = new URL(`${folder}/`, DIR)
  return new Map(
    readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => {
        const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as LibraryFixture
        return [fixture.scenario, fixture]
      }),
  )
}

/** The trace ids of a fixture's spans, in order of first appearance. */
export function traceIdsOf(fixture: LibraryFixture): string[] {
  const ids = new Set<string>()
  for (const body of fixture.exports)
    for (const resource of (body.resourceSpans ?? []) as { scopeSpans?: { spans?: { traceId: string }[] }[] }[])
      for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) ids.add(span.traceId)
  return [...ids]
}

/** How many spans a fixture holds. */
export const spanCountOf = (fixture: LibraryFixture): number =>
  fixture.exports
    .flatMap((body) => (body.resourceSpans ?? []) as { scopeSpans?: { spans?: unknown[] }[] }[])
    .flatMap((resource) => resource.scopeSpans ?? [])
    .reduce((n, scope) => n + (scope.spans?.length ?? 0), 0)

/**
 * Posts each export of the fixture, in order, with `key`; stores what is due (the app must be built with a root
 * grace of 0); answers the export replies and the stored traces, in the order of their trace ids.
 */
export async function replay(
  app: LoupeApp,
  key: string,
  fixture: LibraryFixture,
  { asLangfuse = false } = {},
): Promise<{ replies: unknown[]; traces: (Trace | null)[] }> {
  const replies: unknown[] = []
  // Langfuse's SDK: its own path, the key as the secret key of Basic credentials.
  const langfuseAuth = { authorization: `Basic ${Buffer.from(`pk-lf-anything:${key}`).toString('base64')}` }
  for (const body of fixture.exports) {
    // A fixture holds what the library exported, spans and log records, in the order it arrived.
    const res = asLangfuse
      ? await postOtlp(app, null, body, langfuseAuth, '/api/public/otel/v1/traces')
      : await postOtlp(app, key, body, {}, 'resourceLogs' in body ? '/v1/logs' : '/v1/traces')
    replies.push(res.statusCode === 200 ? res.json() : { statusCode: res.statusCode, body: res.body })
  }
  await app.otlp.materializeDue()
  const traces = await Promise.all(
    traceIdsOf(fixture).map(async (id) => {
      const res = await app.inject(`/traces/${id}`)
      return res.statusCode === 200 ? (res.json() as Trace) : null
    }),
  )
  return { replies, traces }
}
