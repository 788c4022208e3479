// GET /metrics: the Prometheus text exposition format.
import { Type } from '@sinclair/typebox'
import { metricsExample } from './examples.js'

/** The media type of Prometheus' text format, as prom-client writes it. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

// GET /metrics
export const MetricsResponse = {
  description: 'Every metric in the Prometheus text format (version 0.0.4).',
  content: {
    [PROMETHEUS_CONTENT_TYPE]: {
      schema: Type.String({ description: 'One `# HELP` and `# TYPE` line per metric, then one line per series.' }),
      example: metricsExample,
    },
  },
}
