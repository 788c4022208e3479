// The viewer's build: a static app under /ui/, served by the Loupe server itself (src/routes/ui.ts). Every emitted
// file also gets .gz and .br twins, so the server sends compressed bytes without compressing on each request.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })
}

/** Writes `x.gz` and `x.br` beside every compressible file of the build. */
function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'loupe-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir)
    },
    closeBundle() {
      for (const file of files(outDir).filter((f) => COMPRESSIBLE.test(f))) {
        const bytes = readFileSync(file)
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }))
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
      }
    },
  }
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/ui/',
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npm run dev:web`: the app with hot reload, the API from a Loupe server on :3000.
    port: 5173,
    proxy: {
      '^/(traces|analytics|failures|sessions|users|models|projects|api-keys|health|ws)': {
        target: 'http://127.0.0.1:3000',
        ws: true,
      },
    },
  },
})
