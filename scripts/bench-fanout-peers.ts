// A helper process of the benchmark (scripts/bench.ts), so that neither the peers nor the prober share the event loop
// of what they measure:
//
//   bench-fanout-peers.ts peers <ws-url> <sockets> <events>
//     opens <sockets> WebSocket peers, prints `{"ready":N}`, then counts the trace.created frames each receives and
//     prints `{"complete":C,"received":R,"dropped":D,"ms":T}` once every peer has <events> of them (or after a minute:
//     the peers the server dropped, or that are still short, are counted); closes them all on a line on stdin.
//   bench-fanout-peers.ts probe <url> [gapMs=5]
//     asks <url> a few times to warm up and prints `{"ready":true}`; then asks it again and again (one request at a
//     time, gapMs apart) until it gets a line on stdin, and prints `{"ms":[…],"failed":F,"firstFailure":"…"}`: each
//     answer's time in order (a failed request counts as the wait it was), and the failures.
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

const [mode, url, ...rest] = process.argv.slice(2)
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
const stdinLine = () =>
  new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()))

async function peers(target: string, count: number, events: number) {
  const sockets: WebSocket[] = []
  const received: number[] = []
  let complete = 0
  let dropped = 0
  let first = 0
  let done: () => void = () => {}
  const finished = new Promise<void>((resolve) => {
    done = resolve
  })
  for (let opened = 0; opened < count; ) {
    const wave = Math.min(250, count - opened)
    await Promise.all(
      Array.from({ length: wave }, () => {
        const i = sockets.length
        const socket = new WebSocket(target, { perMessageDeflate: false })
        sockets.push(socket)
        received.push(-1) // the greeting comes first
        socket.on('message', () => {
          if (first === 0 && received[i]! >= 0) first = performance.now()
          received[i]!++
          if (received[i] === events) {
            complete++
            if (complete + dropped === count) done()
          }
        })
        socket.on('close', () => {
          if (received[i]! < events) {
            dropped++
            if (complete + dropped === count) done()
          }
        })
        socket.on('error', () => {})
        return new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve())
          socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)))
        })
      }),
    )
    opened += wave
  }
  print({ ready: sockets.length })
  const timeout = setTimeout(done, 60_000)
  await finished
  clearTimeout(timeout)
  print({
    complete,
    received: received.reduce((sum, n) => sum + Math.max(0, n), 0),
    dropped,
    ms: first === 0 ? 0 : Math.round(performance.now() - first),
  })
  await stdinLine()
  for (const socket of sockets) socket.terminate()
  process.exit(0)
}

async function probe(target: string, gapMs: number) {
  const latencies: number[] = []
  let failed = 0
  let firstFailure = ''
  let stop = false
  void stdinLine().then(() => {
    stop = true
  })
  // A new process's first answers (its connection, code not yet compiled) are not the server's.
  for (let i = 0; i < 20; i++) await (await fetch(target)).arrayBuffer()
  print({ ready: true })
  while (!stop) {
    const started = performance.now()
    try {
      const res = await fetch(target)
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`answered ${res.status}`)
    } catch (err) {
      // A refused or reset connection is a (long) wait too.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      failed++
      firstFailure ||= `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`
    }
    latencies.push(performance.now() - started)
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
  }
  print({ ms: latencies.map((l) => Math.round(l * 100) / 100), failed, firstFailure })
  process.exit(0)
}

if (mode === 'peers') await peers(url!, Number(rest[0]), Number(rest[1]))
else if (mode === 'probe') await probe(url!, Number(rest[0] ?? 5))
else throw new Error('usage: bench-fanout-peers.ts peers <ws-url> <sockets> <events> | probe <url> [gapMs]')
