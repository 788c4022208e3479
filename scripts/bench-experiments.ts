// The bench's experiment fixture: a dataset of N items and two experiments over it, each item's run a trace with a
// score — what GET /experiments/compare and the viewer's comparison grid are timed on.
import { postJson } from './bench-harness.js'

const post = (base: string, key: string, path: string, body: unknown) => postJson(`${base}${path}`, body, key)

/** Makes the dataset and its two experiments (the second slower, dearer and a little better); resolves to their ids. */
export async function experimentFixture(
  base: string,
  key: string,
  projectId: string,
  n: number,
): Promise<[string, string]> {
  const tag = `bench-${Date.now()}`
  const dataset = await post(base, key, '/datasets', { name: tag, project_id: projectId })
  const datasetId = String(dataset.dataset_id)
  const added = (await post(base, key, `/datasets/${datasetId}/items`, {
    items: Array.from({ length: n }, (_, i) => ({
      input: { question: `question ${i}` },
      expected_output: `answer ${i}`,
    })),
  })) as { items: { dataset_item_id: string }[] }
  const ids: string[] = []
  for (const [run, model] of ['gpt-4o-mini', 'gpt-4o'].entries()) {
    const experiment = await post(base, key, '/experiments', { dataset_id: datasetId, name: `${tag} ${model}` })
    const experimentId = String(experiment.experiment_id)
    ids.push(experimentId)
    for (let i = 0; i < n; i += 100) {
      const traces = added.items.slice(i, i + 100).map((item, j) => ({
        trace_id: `${experimentId}-${i + j}`,
        name: 'experiment item',
        model,
        prompt: `question ${i + j}`,
        response: `answer ${(i + j) % (run === 0 ? 3 : 4) === 0 ? 'wrong' : i + j}`,
        latency: 300 + ((i + j) % 200) + run * 150,
        prompt_tokens: 40,
        completion_tokens: 12 + run * 4,
        experiment_id: experimentId,
        dataset_item_id: item.dataset_item_id,
        scores: [{ name: 'correctness', value: (i + j) % (run === 0 ? 3 : 4) === 0 ? 0 : 1 }],
      }))
      await post(base, key, '/traces/batch', { traces })
    }
  }
  return [ids[0]!, ids[1]!]
}
