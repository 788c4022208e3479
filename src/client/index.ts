// `loupe/client`: the Loupe SDK. Record traces from an app (`new Loupe().trace(…)`), read them back, follow the live
// stream. Node's own fetch is its only need at run time; every type comes from the contract in schemas/.
export type { EvaluatorResult, ExperimentSummary, LocalEvaluator, RunExperimentOptions } from './experiment.js'
export { LoupeError } from './http.js'
export { DEFAULT_BASE_URL, Loupe, type LoupeOptions } from './loupe.js'
export type { SubscribeOptions, Subscription, SubscriptionStatus } from './subscribe.js'
export * from './types.js'
