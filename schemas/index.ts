// The contract in one import, and the named components every app registers.

import {
  AnalyticsSummarySchema,
  BreakdownEntrySchema,
  CallBreakdownEntrySchema,
  ChartPointSchema,
  CostBreakdownEntrySchema,
} from './analytics.js'
import { AnnotationItemSchema, AnnotationQueueSchema } from './annotation.js'
import { ApiKeyCreatedSchema, ApiKeySchema } from './api-key.js'
import { ErrorSchema } from './common.js'
import { DatasetItemInputSchema, DatasetItemSchema, DatasetSchema } from './dataset.js'
import { EvaluatorInputSchema, EvaluatorRunSchema, EvaluatorSchema, EvaluatorStatsSchema } from './evaluator.js'
import {
  ExperimentAggregatesSchema,
  ExperimentDeltaSchema,
  ExperimentRunSchema,
  ExperimentSchema,
} from './experiment.js'
import { ModelPriceSchema } from './model.js'
import { ProjectSchema } from './project.js'
import { ScoreAnalyticsSchema, ScoreConfigSchema, ScoreInputSchema, ScoreSchema } from './score.js'
import { SessionSummarySchema, UserSummarySchema } from './session.js'
import { StepInputSchema, StepSchema } from './step.js'
import { TraceInputSchema, TraceSchema, TraceSummarySchema } from './trace.js'

export * from './agent-calls.js'
export * from './alert.js'
export * from './analytics.js'
export * from './annotation.js'
export * from './api-key.js'
export * from './common.js'
export * from './dataset.js'
export * from './evaluator.js'
export * from './events.js'
export * from './experiment.js'
export * from './health.js'
export * from './mcp.js'
export * from './metrics.js'
export * from './model.js'
export * from './otlp.js'
export * from './project.js'
export * from './score.js'
export * from './search.js'
export * from './session.js'
export * from './step.js'
export * from './trace.js'
export * from './trace-filter.js'

/** Schemas registered by `$id`; routes point at them with `Ref()`, and OpenAPI lists them as components. */
export const componentSchemas = [
  ErrorSchema,
  StepSchema,
  StepInputSchema,
  TraceSchema,
  TraceInputSchema,
  TraceSummarySchema,
  ProjectSchema,
  ApiKeyCreatedSchema,
  ApiKeySchema,
  AnalyticsSummarySchema,
  ChartPointSchema,
  BreakdownEntrySchema,
  CostBreakdownEntrySchema,
  CallBreakdownEntrySchema,
  ModelPriceSchema,
  SessionSummarySchema,
  UserSummarySchema,
  ScoreSchema,
  ScoreInputSchema,
  ScoreConfigSchema,
  ScoreAnalyticsSchema,
  EvaluatorInputSchema,
  EvaluatorStatsSchema,
  EvaluatorRunSchema,
  EvaluatorSchema,
  AnnotationQueueSchema,
  AnnotationItemSchema,
  DatasetSchema,
  DatasetItemSchema,
  DatasetItemInputSchema,
  ExperimentSchema,
  ExperimentRunSchema,
  ExperimentAggregatesSchema,
  ExperimentDeltaSchema,
] as const
