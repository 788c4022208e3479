// Server-side redaction: built-in detectors (e-mail addresses, card numbers with a Luhn check, API-key-looking
// strings, phone numbers) and operator regexes, applied at ingest to the free text of a trace before it is stored or
// announced. Pure functions; the ingest service and the OTLP service apply them (see createRedactor).
import { type OtlpLogRecord, type OtlpSpan, PII_DETECTORS, type Trace } from '../../schemas/index.js'

/** The built-in detectors, in the order they run: the contract's list (schemas/evaluator.ts). */
export const DETECTORS = PII_DETECTORS
export type Detector = (typeof DETECTORS)[number]

export interface RedactionSettings {
  detectors: readonly Detector[]
  /** Operator regexes (JavaScript syntax), each match replaced with `[REDACTED]`. */
  patterns: readonly string[]
}

/** What a match is replaced with: `[REDACTED:email]` for a detector, `[REDACTED]` for an operator pattern. */
export const placeholder = (detector?: Detector) => (detector ? `[REDACTED:${detector}]` : '[REDACTED]')

/** Whether a string of digits passes the Luhn checksum (every payment card number does). */
export function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

const digitsOf = (s: string) => s.replace(/\D/g, '')

/** Each detector: a regex finding candidates, and a check a candidate must pass to be redacted. */
const RULES: Record<Detector, { pattern: RegExp; accept?: (match: string) => boolean }> = {
  // Secrets with a recognisable shape: provider-prefixed keys (OpenAI/Anthropic `sk-`, Loupe's own secret and public
  // keys, GitHub, Slack, Google, AWS, Stripe), JSON Web Tokens, and a Bearer credential.
  api_key: {
    pattern: new RegExp(
      [
        String.raw`\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_][a-z0-9]+[-_])?[A-Za-z0-9_-]{16,}`,
        String.raw`\bloupe_[sp]k_[A-Za-z0-9]+`,
        String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
        String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
        String.raw`\bAIza[0-9A-Za-z_-]{35}`,
        String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
        String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+`,
        String.raw`\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*`,
      ].join('|'),
      'g',
    ),
  },
  email: { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  // 13 to 19 digits, optionally grouped by spaces or dashes, that pass the Luhn check.
  card: {
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    accept: (match) => {
      const digits = digitsOf(match)
      return digits.length >= 13 && digits.length <= 19 && luhn(digits)
    },
  },
  // An international number (`+33 6 12 34 56 78`), or a grouped national one (`(555) 123-4567`, `555-123-4567`,
  // `06 12 34 56 78`): 7 to 15 digits. A date (`2026-11-23`) or a plain number is not a phone number.
  phone: {
    pattern:
      /(?<![\w+.-])(?:\+\d{7,15}|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]\d{2,4}){1,5})(?![\w.-])/g,
    accept: (match) => {
      const digits = digitsOf(match).length
      if (digits < 7 || digits > 15) return false
      // Without a country code or an area code in parentheses, two groups (`1234-5678`) are too often not a phone.
      if (!/[+(]/.test(match) && (match.match(/[ .-]/g)?.length ?? 0) < 2) return false
      if (/^\d{4}-\d{2}-\d{2}$/.test(match) || /^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/.test(match)) return false
      return true
    },
  },
}

export type Redact = (text: string) => string

/** Throws an Error naming the bad pattern when one does not compile. */
export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((source, i) => {
    try {
      const re = new RegExp(source, 'g')
      if (re.test('')) throw new Error('it matches the empty string')
      return re
    } catch (err) {
      throw new Error(
        `REDACT_PATTERNS[${i}] (${JSON.stringify(source)}) is not a usable regex: ${(err as Error).message}`,
      )
    }
  })
}

/** The text redactor of some settings; null when they redact nothing (the default). */
export function createRedactor(settings: RedactionSettings): Redact | null {
  const custom = compilePatterns(settings.patterns)
  const detectors = DETECTORS.filter((d) => settings.detectors.includes(d))
  if (detectors.length === 0 && custom.length === 0) return null
  return (text) => {
    let out = text
    for (const detector of detectors) {
      const { pattern, accept } = RULES[detector]
      out = out.replace(pattern, (match) => (accept && !accept(match) ? match : placeholder(detector)))
    }
    for (const re of custom) out = out.replace(re, placeholder())
    return out
  }
}

/** Which of these detectors find something in a text (in DETECTORS order): what the `pii` evaluator reports. */
export function detectedIn(text: string, detectors: readonly Detector[]): Detector[] {
  return DETECTORS.filter((detector) => {
    if (!detectors.includes(detector)) return false
    const { pattern, accept } = RULES[detector]
    return [...text.matchAll(pattern)].some(([match]) => !accept || accept(match))
  })
}

/** Every string inside a JSON value redacted (object keys kept); other values as they are. */
export function redactValue(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redact)]))
  }
  return value
}

const redactText = <T extends string | null>(text: T, redact: Redact): T => (text === null ? null : redact(text)) as T

/** A normalized trace with its prompt, response, failure reason, metadata and steps' input/output/error redacted. */
export function redactTrace(trace: Trace, redact: Redact): Trace {
  return {
    ...trace,
    prompt: redactText(trace.prompt, redact),
    response: redactText(trace.response, redact),
    failure_reason: redactText(trace.failure_reason, redact),
    metadata: redactValue(trace.metadata, redact) as Trace['metadata'],
    steps: trace.steps.map((step) => ({
      ...step,
      input: redactValue(step.input, redact),
      output: redactValue(step.output, redact),
      error: redactText(step.error, redact),
      metadata: redactValue(step.metadata, redact) as typeof step.metadata,
    })),
  }
}

/** An OTLP GenAI log record with the values of its attributes and its body redacted (kept pending so). */
export function redactLogRecord(record: OtlpLogRecord, redact: Redact): OtlpLogRecord {
  return {
    ...record,
    attributes: redactValue(record.attributes, redact) as OtlpLogRecord['attributes'],
    body: redactValue(record.body, redact),
  }
}

/** An OTLP span with the values of its attributes and events, and its status message, redacted (kept pending so). */
export function redactSpan(span: OtlpSpan, redact: Redact): OtlpSpan {
  return {
    ...span,
    attributes: redactValue(span.attributes, redact) as OtlpSpan['attributes'],
    events: span.events.map((e) => ({ ...e, attributes: redactValue(e.attributes, redact) as typeof e.attributes })),
    status_message: redact(span.status_message),
  }
}
