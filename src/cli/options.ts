// Option parsers and option sets the commands share: each refuses a bad value with a sentence naming the flag.
import { type Command, InvalidArgumentError, Option } from 'commander'
import { ENVIRONMENTS } from '../../schemas/index.js'

export const integer =
  (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = Number(value)
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`)
    }
    return n
  }

export const nonNegative = (name: string) => (value: string) => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`${name} must be a number ≥ 0.`)
  return n
}

export const positive = (name: string) => (value: string) => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a number > 0.`)
  return n
}

/** The options of the commands that issue a key: its environment, and how to print the one-time secret. */
export const withNewKeyOptions = (command: Command) =>
  command
    .addOption(
      new Option('-e, --environment <environment>', 'environment of the key')
        .choices(ENVIRONMENTS)
        .default('development'),
    )
    .option('-q, --quiet', 'print only the key (for scripts)')
    .option('--json', 'print the server’s answer as JSON')

export const checkUrl = (value: string) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  return value
}
