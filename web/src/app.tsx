// The shell: navigation, the routes (every view is a link under /ui/), and the credential prompt of protected mode.
import type { QueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { Link, Route, Router, Switch, useLocation } from 'wouter'
import { credential } from './api/client.js'
import { type LiveStream, useLiveState } from './api/live.js'
import { SessionDetail, Sessions } from './features/activity/sessions.js'
import { UserDetail, Users } from './features/activity/users.js'
import { Queues, QueueWalk } from './features/annotation/queues.js'
import { TokenPrompt } from './features/auth/token-prompt.js'
import { Dashboard } from './features/dashboard/dashboard.js'
import { EvaluatorByName, EvaluatorPage, Evaluators } from './features/evaluators/evaluators.js'
import { EditEvaluator, NewEvaluator } from './features/evaluators/rule-editor.js'
import { Failures } from './features/failures/failures.js'
import { Projects } from './features/projects/projects.js'
import { TraceDetail } from './features/traces/trace-detail.js'
import { TraceList } from './features/traces/trace-list.js'

/** Whether the server asked for a credential (a 401) that the viewer does not have yet. */
export const authState = (() => {
  let required = false
  let rejected = false
  const listeners = new Set<() => void>()
  const emit = () => {
    for (const listener of listeners) listener()
  }
  return {
    require() {
      if (required) return
      rejected = credential.get() !== null
      required = true
      emit()
    },
    satisfied() {
      required = false
      emit()
    },
    get: () => (required ? (rejected ? 'rejected' : 'required') : 'ok'),
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
})()

/** The views, in the order of the navigation. */
const NAV = [
  { href: '/', label: 'Dashboard' },
  { href: '/traces', label: 'Traces' },
  { href: '/sessions', label: 'Sessions' },
  { href: '/users', label: 'Users' },
  { href: '/failures', label: 'Failures' },
  { href: '/queues', label: 'Queues' },
  { href: '/evaluators', label: 'Evaluators' },
  { href: '/projects', label: 'Projects' },
] as const

function Nav({ onSignOut }: { onSignOut: () => void }) {
  const [location] = useLocation()
  const live = useLiveState()
  const signedIn = useSyncExternalStore(credential.subscribe, () => credential.get() !== null)
  const current = (href: string) => (href === '/' ? location === '/' : location.startsWith(href))
  return (
    <nav className="nav" aria-label="Views">
      <div className="brand">
        <svg
          width="16"
          height="16"
          viewBox="0 0 16 16"
          aria-hidden="true"
          style={{ marginRight: 6, verticalAlign: -2 }}
        >
          <circle cx="7" cy="7" r="5" fill="none" stroke="var(--accent)" strokeWidth="2" />
          <path d="M11 11l4 4" stroke="var(--accent)" strokeWidth="2" />
        </svg>
        Loupe
      </div>
      {NAV.map((item) => (
        <Link key={item.href} href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
          {item.label}
        </Link>
      ))}
      <div className="foot">
        <span title="The live stream (/ws)">
          <span className={`live-dot ${live === 'open' ? 'open' : ''}`} />
          {live === 'open' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Offline'}
        </span>
        {signedIn && (
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        )}
      </div>
    </nav>
  )
}

export function App({ queryClient, live }: { queryClient: QueryClient; live: LiveStream }) {
  const auth = useSyncExternalStore(authState.subscribe, authState.get)
  const applyCredential = (token: string | null) => {
    credential.set(token)
    authState.satisfied()
    // The stream opens again once a request succeeds with the new credential.
    live.stop()
    queryClient.resetQueries()
  }
  return (
    <Router base="/ui">
      <div className="shell">
        <Nav onSignOut={() => applyCredential(null)} />
        <main className="main">
          <Switch>
            <Route path="/" component={Dashboard} />
            <Route path="/traces" component={TraceList} />
            <Route path="/traces/:id">{(params) => <TraceDetail id={params.id} />}</Route>
            <Route path="/sessions" component={Sessions} />
            <Route path="/sessions/:id">{(params) => <SessionDetail id={params.id} />}</Route>
            <Route path="/users" component={Users} />
            <Route path="/users/:id">{(params) => <UserDetail id={params.id} />}</Route>
            <Route path="/failures" component={Failures} />
            <Route path="/queues" component={Queues} />
            <Route path="/queues/:id">{(params) => <QueueWalk id={params.id} />}</Route>
            <Route path="/evaluators" component={Evaluators} />
            <Route path="/evaluators/new" component={NewEvaluator} />
            <Route path="/evaluators/named/:name">{(params) => <EvaluatorByName name={params.name} />}</Route>
            <Route path="/evaluators/:id/edit">{(params) => <EditEvaluator id={params.id} />}</Route>
            <Route path="/evaluators/:id">{(params) => <EvaluatorPage id={params.id} />}</Route>
            <Route path="/projects" component={Projects} />
            <Route>
              <div className="page">
                <h1>Not found</h1>
                <p>
                  Nothing here. <Link href="/">Back to the dashboard</Link>
                </p>
              </div>
            </Route>
          </Switch>
        </main>
      </div>
      {auth !== 'ok' && <TokenPrompt rejected={auth === 'rejected'} onSubmit={applyCredential} />}
    </Router>
  )
}
