// The CLI's own failure: something the user can act on, printed as `loupe: <message>` without a stack.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}
