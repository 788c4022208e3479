// The viewer's entry: one query cache, one live stream, the router under /ui.
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api/client.js'
import { LiveContext, LiveStream } from './api/live.js'
import { App, authState } from './app.js'
import './ui/theme.css'

const live = new LiveStream()
const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error) => {
      if (error instanceof ApiError && error.status === 401) authState.require()
    },
    // The live stream opens once the server has answered a request: in protected mode, only with a good credential.
    onSuccess: () => live.ensureStarted(),
  }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a lost connection may.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <LiveContext.Provider value={live}>
        <App queryClient={queryClient} live={live} />
      </LiveContext.Provider>
    </QueryClientProvider>
  </StrictMode>,
)
