// Every server read and write the viewer makes, as TanStack Query hooks: the query cache is the only client store
// for server data. Keys start with the resource, so a live event or a mutation can refresh exactly what it changes.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type {
  AnalyticsResponse,
  AnnotationItem,
  AnnotationQueue,
  ApiKey,
  ApiKeyCreated,
  CompareExperimentsResponse,
  CreateEvaluatorRunBody,
  CreateProjectResponse,
  Dataset,
  DatasetItem,
  DatasetItemInput,
  Environment,
  Evaluator,
  EvaluatorInput,
  EvaluatorRun,
  ExperimentDetailResponse,
  FailuresResponse,
  FromTracesResponse,
  ListAnnotationQueuesResponse,
  ListApiKeysResponse,
  ListDatasetItemsResponse,
  ListDatasetItemVersionsResponse,
  ListDatasetsResponse,
  ListEvaluatorRunsResponse,
  ListEvaluatorsResponse,
  ListExperimentsResponse,
  ListJudgeTemplatesResponse,
  ListProjectsResponse,
  ListScoreConfigsResponse,
  ListScoresResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  ListTraceSummariesResponse,
  ListUsersQuery,
  ListUsersResponse,
  Score,
  SessionDetailResponse,
  TestEvaluatorResponse,
  Trace,
  UserDetailResponse,
} from '../../../schemas/index.js'
import type { TraceFilter } from '../features/traces/filters.js'
import { api } from './client.js'

/** Rows fetched per request while scrolling the trace list. */
export const TRACE_PAGE = 100

export const keys = {
  traces: (filter: TraceFilter) => ['traces', filter] as const,
  trace: (id: string) => ['trace', id] as const,
  analytics: (projectId: string | undefined) => ['analytics', projectId ?? null] as const,
  failures: (projectId: string | undefined) => ['failures', projectId ?? null] as const,
  sessions: (query: ListSessionsQuery) => ['sessions', query] as const,
  session: (id: string, projectId: string | undefined) => ['session', id, projectId ?? null] as const,
  users: (query: ListUsersQuery) => ['users', query] as const,
  user: (id: string, projectId: string | undefined) => ['user', id, projectId ?? null] as const,
  projects: ['projects'] as const,
  scoreConfigs: ['score-configs'] as const,
  queues: ['annotation-queues'] as const,
  queue: (id: string) => ['annotation-queues', id] as const,
  apiKeys: ['api-keys'] as const,
  evaluators: ['evaluators'] as const,
  evaluator: (id: string) => ['evaluators', id] as const,
  evaluatorRuns: (id: string) => ['evaluators', id, 'runs'] as const,
  evaluatorScores: (author: string, scoreName: string) => ['scores', 'evaluator', author, scoreName] as const,
  judgeTemplates: ['judge-templates'] as const,
  latestTraces: (projectId: string | null) => ['latest-traces', projectId] as const,
  datasets: ['datasets'] as const,
  dataset: (id: string) => ['datasets', id] as const,
  experiments: (ids: string) => ['experiments', ids] as const,
}

export function useTraceList(filter: TraceFilter) {
  return useInfiniteQuery({
    queryKey: keys.traces(filter),
    queryFn: ({ pageParam, signal }) =>
      api<ListTraceSummariesResponse>('GET', '/traces', {
        query: { ...filter, fields: 'summary', limit: TRACE_PAGE, cursor: pageParam },
        signal,
      }),
    // Paged by the server's cursor: each page costs the same however deep, and live rows added at the top do not
    // shift the pages after them.
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Live events keep the list current: it is never refetched on a timer or on focus.
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: keepPreviousData,
  })
}

export function useTrace(id: string) {
  // A stored trace never changes but for its scores: once read, it is kept, and read again when a score of it is
  // given or deleted here (useSaveScore) or on the live stream (the trace page).
  return useQuery({
    queryKey: keys.trace(id),
    queryFn: ({ signal }) => api<Trace>('GET', `/traces/${encodeURIComponent(id)}`, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

export function useAnalytics(projectId: string | undefined) {
  return useQuery({
    queryKey: keys.analytics(projectId),
    queryFn: ({ signal }) => api<AnalyticsResponse>('GET', '/analytics', { query: { project_id: projectId }, signal }),
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: keepPreviousData,
  })
}

export function useFailures(projectId: string | undefined, limit = 50) {
  return useQuery({
    queryKey: keys.failures(projectId),
    queryFn: ({ signal }) =>
      api<FailuresResponse>('GET', '/failures', { query: { project_id: projectId, limit }, signal }),
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: keepPreviousData,
  })
}

/** A page of sessions or users (offset paging: these lists are as long as their activity). */
function useActivityPage<Q extends ListUsersQuery, R>(kind: 'sessions' | 'users', query: Q) {
  return useQuery({
    queryKey: (kind === 'sessions' ? keys.sessions : keys.users)(query),
    queryFn: ({ signal }) => api<R>('GET', `/${kind}`, { query: { ...query }, signal }),
    staleTime: 10_000,
    placeholderData: keepPreviousData,
  })
}

/** One session or user: its totals and what it holds (the session's traces, the user's sessions). */
function useActivityDetail<R>(kind: 'sessions' | 'users', id: string, projectId: string | undefined) {
  return useQuery({
    queryKey: (kind === 'sessions' ? keys.session : keys.user)(id, projectId),
    queryFn: ({ signal }) =>
      api<R>('GET', `/${kind}/${encodeURIComponent(id)}`, { query: { project_id: projectId }, signal }),
    staleTime: 10_000,
  })
}

export const useSessions = (query: ListSessionsQuery) =>
  useActivityPage<ListSessionsQuery, ListSessionsResponse>('sessions', query)
export const useSession = (id: string, projectId: string | undefined) =>
  useActivityDetail<SessionDetailResponse>('sessions', id, projectId)
export const useUsers = (query: ListUsersQuery) => useActivityPage<ListUsersQuery, ListUsersResponse>('users', query)
export const useUser = (id: string, projectId: string | undefined) =>
  useActivityDetail<UserDetailResponse>('users', id, projectId)

export function useProjects(enabled = true) {
  return useQuery({
    queryKey: keys.projects,
    queryFn: ({ signal }) => api<ListProjectsResponse>('GET', '/projects', { signal }),
    staleTime: 60_000,
    enabled,
  })
}

export function useApiKeys() {
  return useQuery({
    queryKey: keys.apiKeys,
    queryFn: ({ signal }) => api<ListApiKeysResponse>('GET', '/api-keys', { signal }),
    staleTime: 60_000,
  })
}

function useRefreshProjects() {
  const client = useQueryClient()
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: keys.projects }),
      client.invalidateQueries({ queryKey: keys.apiKeys }),
    ])
}

export function useCreateProject() {
  const refresh = useRefreshProjects()
  return useMutation({
    mutationFn: (input: { name: string; environment: Environment; description: string }) =>
      api<CreateProjectResponse>('POST', '/projects', { body: input }),
    onSuccess: refresh,
  })
}

export function useCreateApiKey() {
  const refresh = useRefreshProjects()
  return useMutation({
    mutationFn: (input: { project_id: string; environment: Environment }) =>
      api<ApiKeyCreated>('POST', '/api-keys', { body: input }),
    onSuccess: refresh,
  })
}

export function useRevokeApiKey() {
  const refresh = useRefreshProjects()
  return useMutation({
    mutationFn: (keyId: string) => api<ApiKey>('DELETE', `/api-keys/${encodeURIComponent(keyId)}`),
    onSuccess: refresh,
  })
}

export function useScoreConfigs() {
  return useQuery({
    queryKey: keys.scoreConfigs,
    queryFn: ({ signal }) => api<ListScoreConfigsResponse>('GET', '/score-configs', { signal }),
    staleTime: 60_000,
  })
}

/** A score a person gives in the viewer (POST /scores with source `annotation`). */
export interface AnnotationScore {
  trace_id: string
  step_index: number | null
  name: string
  value: number | boolean | string
  comment: string | null
  author: string
}

/**
 * Gives a score, replacing the one this author gave under the same name to the same trace or step: a stored score
 * never changes (another content under its id is a 409), so a change deletes the old score and posts the new one.
 */
export function useSaveScore() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: async ({ score, replaces }: { score: AnnotationScore; replaces: string | null }) => {
      if (replaces !== null) await api<null>('DELETE', `/scores/${encodeURIComponent(replaces)}`)
      return api<Score>('POST', '/scores', { body: { ...score, source: 'annotation' } })
    },
    onSuccess: (_score, { score }) => client.invalidateQueries({ queryKey: keys.trace(score.trace_id) }),
  })
}

export function useAnnotationQueues() {
  return useQuery({
    queryKey: keys.queues,
    queryFn: ({ signal }) => api<ListAnnotationQueuesResponse>('GET', '/annotation-queues', { signal }),
    staleTime: 10_000,
  })
}

export function useAnnotationQueue(id: string) {
  return useQuery({
    queryKey: keys.queue(id),
    queryFn: ({ signal }) => api<AnnotationQueue>('GET', `/annotation-queues/${encodeURIComponent(id)}`, { signal }),
    staleTime: 5_000,
  })
}

/** The walk through a queue: the next trace (held for the annotator), a trace done, a trace given back. */
export const queueWalk = {
  next: (queueId: string, annotator: string, exclude: readonly string[]) =>
    api<AnnotationItem | null>('POST', `/annotation-queues/${encodeURIComponent(queueId)}/next`, {
      body: { annotator, exclude: exclude.slice(-100) },
    }),
  act: (queueId: string, traceId: string, what: 'done' | 'release', annotator: string) =>
    api<AnnotationItem>(
      'POST',
      `/annotation-queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(traceId)}/${what}`,
      { body: { annotator } },
    ),
}

/**
 * Evaluator figures (pending jobs, errors, a backfill's progress) move as the worker runs, with no event on /ws: they
 * are read again this often while their page is open and shown (a hidden tab stops asking).
 */
export const EVALUATOR_REFRESH_MS = 2000

export function useEvaluators() {
  return useQuery({
    queryKey: keys.evaluators,
    queryFn: ({ signal }) => api<ListEvaluatorsResponse>('GET', '/evaluators', { signal }),
    refetchInterval: EVALUATOR_REFRESH_MS,
  })
}

export function useEvaluator(id: string) {
  return useQuery({
    queryKey: keys.evaluator(id),
    queryFn: ({ signal }) => api<Evaluator>('GET', `/evaluators/${encodeURIComponent(id)}`, { signal }),
    refetchInterval: EVALUATOR_REFRESH_MS,
  })
}

export function useJudgeTemplates() {
  return useQuery({
    queryKey: keys.judgeTemplates,
    queryFn: ({ signal }) => api<ListJudgeTemplatesResponse>('GET', '/evaluators/templates', { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** A rule's backfills and how far they have got. */
export function useEvaluatorRuns(id: string) {
  return useQuery({
    queryKey: keys.evaluatorRuns(id),
    queryFn: ({ signal }) =>
      api<ListEvaluatorRunsResponse>('GET', `/evaluators/${encodeURIComponent(id)}/runs`, { signal }),
    refetchInterval: EVALUATOR_REFRESH_MS,
  })
}

/** The latest scores a rule wrote: source `evaluator`, author the rule's name. */
export function useEvaluatorScores(author: string, scoreName: string, limit = 50) {
  return useQuery({
    queryKey: keys.evaluatorScores(author, scoreName),
    queryFn: ({ signal }) =>
      api<ListScoresResponse>('GET', '/scores', {
        query: { source: 'evaluator', author, name: scoreName, limit },
        signal,
      }),
    refetchInterval: EVALUATOR_REFRESH_MS,
  })
}

/** The newest traces (of a project, or of all), to pick one to try a rule on. */
export function useLatestTraces(projectId: string | null, limit = 10) {
  return useQuery({
    queryKey: keys.latestTraces(projectId),
    queryFn: ({ signal }) =>
      api<ListTraceSummariesResponse>('GET', '/traces', {
        query: { project_id: projectId, fields: 'summary', limit },
        signal,
      }),
    staleTime: 5_000,
  })
}

export function useDatasets() {
  return useQuery({
    queryKey: keys.datasets,
    queryFn: ({ signal }) => api<ListDatasetsResponse>('GET', '/datasets', { signal }),
    staleTime: 5_000,
  })
}

/** How a dataset's page reads it: now or as it was at `asOf`, with or without its archived items. */
export interface DatasetView {
  asOf?: string
  archived?: boolean
}

/** A dataset, its items (the first 1000; as of a time, archived ones too when asked) and its experiments, newest first. */
export function useDataset(id: string, view: DatasetView = {}) {
  return useQuery({
    queryKey: [...keys.dataset(id), view],
    queryFn: async ({ signal }) => {
      const path = `/datasets/${encodeURIComponent(id)}`
      const [dataset, items, experiments] = await Promise.all([
        api<Dataset>('GET', path, { signal }),
        api<ListDatasetItemsResponse>('GET', `${path}/items`, {
          query: { limit: 1000, as_of: view.asOf, include_archived: view.archived || undefined },
          signal,
        }),
        api<ListExperimentsResponse>('GET', '/experiments', { query: { dataset_id: id }, signal }),
      ])
      return { dataset, items, experiments }
    },
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  })
}

const itemPath = (datasetId: string, itemId: string) =>
  `/datasets/${encodeURIComponent(datasetId)}/items/${encodeURIComponent(itemId)}`

/** Every version of an item, oldest first. */
export function useItemVersions(datasetId: string, itemId: string | null) {
  return useQuery({
    queryKey: [...keys.dataset(datasetId), 'versions', itemId],
    queryFn: ({ signal }) =>
      api<ListDatasetItemVersionsResponse>('GET', `${itemPath(datasetId, itemId ?? '')}/versions`, { signal }),
    enabled: itemId !== null,
  })
}

/** One item, now or in the version it had at `asOf`. */
export function useDatasetItem(datasetId: string, itemId: string, asOf?: string) {
  return useQuery({
    queryKey: [...keys.dataset(datasetId), 'item', itemId, asOf ?? null],
    queryFn: ({ signal }) => api<DatasetItem>('GET', itemPath(datasetId, itemId), { query: { as_of: asOf }, signal }),
    enabled: datasetId !== '' && itemId !== '',
  })
}

/** Creates a rule (no id) or replaces one. */
export function useSaveEvaluator() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: EvaluatorInput }) =>
      id === null
        ? api<Evaluator>('POST', '/evaluators', { body: input })
        : api<Evaluator>('PUT', `/evaluators/${encodeURIComponent(id)}`, { body: input }),
    onSuccess: (saved) => {
      client.setQueryData(keys.evaluator(saved.evaluator_id), saved)
      return client.invalidateQueries({ queryKey: keys.evaluators })
    },
  })
}

export function useDeleteEvaluator() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/evaluators/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.evaluators }),
  })
}

/** A dry run: the unsaved rule on one trace, nothing stored. */
export function useTestEvaluator() {
  return useMutation({
    mutationFn: (body: { evaluator: EvaluatorInput; trace_id: string }) =>
      api<TestEvaluatorResponse>('POST', '/evaluators/test', { body }),
  })
}

export function useStartEvaluatorRun(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (body: CreateEvaluatorRunBody) =>
      api<EvaluatorRun>('POST', `/evaluators/${encodeURIComponent(id)}/runs`, { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.evaluatorRuns(id) }),
  })
}

export function useCancelEvaluatorRun(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (runId: string) => api<EvaluatorRun>('DELETE', `/evaluator-runs/${encodeURIComponent(runId)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.evaluatorRuns(id) }),
  })
}

/** One experiment (`ids` one id) or 2–3 side by side: the comparison's shape either way, the first the baseline. */
export function useExperiments(ids: string) {
  return useQuery({
    queryKey: keys.experiments(ids),
    queryFn: async ({ signal }): Promise<CompareExperimentsResponse> => {
      if (ids.includes(','))
        return api<CompareExperimentsResponse>('GET', '/experiments/compare', { query: { ids }, signal })
      const one = await api<ExperimentDetailResponse>('GET', `/experiments/${encodeURIComponent(ids)}`, { signal })
      const zero = { latency: 0, token_count: 0, cost: 0, scores: {} }
      return {
        experiments: [one.experiment],
        aggregates: [one.aggregates],
        aggregate_deltas: [{ pass_rate: 0, latency_mean: 0, total_tokens: 0, total_cost: 0, scores: {} }],
        items: one.items.map((i) => ({
          dataset_item_id: i.dataset_item_id,
          input: i.input,
          expected_output: i.expected_output,
          runs: [i.run],
          deltas: [i.run ? zero : null],
        })),
      }
    },
    staleTime: 5_000,
  })
}

/** Datasets' writes: a new dataset, items from traces, an item edited (a new version), archived, items imported. */
export function useDatasetWrites() {
  const client = useQueryClient()
  const refresh = () => client.invalidateQueries({ queryKey: keys.datasets })
  return {
    create: useMutation({
      mutationFn: (body: { name: string; project_id: string }) => api<Dataset>('POST', '/datasets', { body }),
      onSuccess: refresh,
    }),
    fromTraces: useMutation({
      mutationFn: ({ datasetId, traceIds }: { datasetId: string; traceIds: string[] }) =>
        api<FromTracesResponse>('POST', `/datasets/${encodeURIComponent(datasetId)}/items/from-traces`, {
          body: { trace_ids: traceIds },
        }),
      onSuccess: refresh,
    }),
    /** A new version of an item (an archived one is active again). */
    editItem: useMutation({
      mutationFn: ({ item, content }: { item: DatasetItem; content: DatasetItemInput }) =>
        api<DatasetItem>('PUT', itemPath(item.dataset_id, item.dataset_item_id), { body: content }),
      onSuccess: refresh,
    }),
    archiveItem: useMutation({
      mutationFn: (item: DatasetItem) => api<DatasetItem>('DELETE', itemPath(item.dataset_id, item.dataset_item_id)),
      onSuccess: refresh,
    }),
    importItems: useMutation({
      mutationFn: ({ datasetId, file }: { datasetId: string; file: File }) =>
        file.text().then((body) =>
          api<{ added: number }>('POST', `/datasets/${encodeURIComponent(datasetId)}/items/import`, {
            text: { contentType: /\.csv$/i.test(file.name) ? 'text/csv' : 'application/x-ndjson', body },
          }),
        ),
      onSuccess: refresh,
    }),
  }
}
