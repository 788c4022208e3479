// The access policy as a table: every access class × every kind of credential × the project a request names, in
// both modes (docs/api.md, Authentication).
import t from 'tap'
import {
  type Access,
  authorize,
  type Credential,
  type Decision,
  inScope,
  type Mode,
  type Target,
} from '../../src/lib/access-policy.js'
import type { KeyContext } from '../../src/store/types.js'

const key: KeyContext = {
  key_id: 'k1',
  project_id: 'alpha',
  project_name: 'Alpha',
  environment: 'production',
  kind: 'secret',
  last_used_at: null,
}
const NONE: Credential = { kind: 'none' }
const INVALID: Credential = { kind: 'invalid' }
const ADMIN: Credential = { kind: 'admin' }
const KEY: Credential = { kind: 'key', key }
const PUBLIC_KEY: Credential = { kind: 'key', key: { ...key, key_id: 'k2', kind: 'public' } }

/** A decision in a line: `allow <principal> <scope|*>`, or `<status> <refusal>`. */
function show(d: Decision): string {
  if (d.allow) return `allow ${d.principal.kind} ${d.scope ?? '*'}`
  return `${d.refusal === 'forbidden' ? 403 : 401} ${d.refusal}`
}

const rows: [Mode, Access, Credential, Target, string][] = [
  // Protected mode: public routes need nothing.
  ['protected', 'public', NONE, {}, 'allow open *'],
  ['protected', 'public', INVALID, {}, 'allow open *'],
  // Reads: a credential is needed; the admin sees all, a key its own project only.
  ['protected', 'read', NONE, {}, '401 missing-credential'],
  ['protected', 'read', INVALID, {}, '401 invalid-credential'],
  ['protected', 'read', ADMIN, {}, 'allow admin *'],
  ['protected', 'read', ADMIN, { project_id: 'beta' }, 'allow admin beta'],
  ['protected', 'read', KEY, {}, 'allow key alpha'],
  ['protected', 'read', KEY, { project_id: 'alpha' }, 'allow key alpha'],
  ['protected', 'read', KEY, { project_id: 'beta' }, '403 forbidden'],
  // Ingest: a project key, never the admin token.
  ['protected', 'ingest', NONE, {}, '401 missing-key'],
  ['protected', 'ingest', INVALID, {}, '401 invalid-key'],
  ['protected', 'ingest', ADMIN, {}, '403 forbidden'],
  ['protected', 'ingest', KEY, {}, 'allow key alpha'],
  ['protected', 'ingest', KEY, { project_id: 'beta' }, 'allow key alpha'],
  // Keys: the admin manages all; a key only its own project and environment.
  ['protected', 'keys', NONE, {}, '401 missing-credential'],
  ['protected', 'keys', INVALID, { project_id: 'alpha' }, '401 invalid-credential'],
  ['protected', 'keys', ADMIN, { project_id: 'beta', environment: 'staging' }, 'allow admin beta'],
  ['protected', 'keys', KEY, {}, 'allow key alpha'],
  ['protected', 'keys', KEY, { project_id: 'alpha', environment: 'production' }, 'allow key alpha'],
  ['protected', 'keys', KEY, { project_id: 'alpha', environment: 'development' }, '403 forbidden'],
  ['protected', 'keys', KEY, { project_id: 'beta', environment: 'production' }, '403 forbidden'],
  // Creating projects: the admin token only.
  ['protected', 'admin', NONE, {}, '401 missing-credential'],
  ['protected', 'admin', INVALID, {}, '401 invalid-credential'],
  ['protected', 'admin', ADMIN, {}, 'allow admin *'],
  ['protected', 'admin', KEY, {}, '403 forbidden'],
  // Anything else (docs): any valid credential.
  ['protected', 'authenticated', NONE, {}, '401 missing-credential'],
  ['protected', 'authenticated', INVALID, {}, '401 invalid-credential'],
  ['protected', 'authenticated', ADMIN, {}, 'allow admin *'],
  ['protected', 'authenticated', KEY, {}, 'allow key alpha'],
  // Open mode: everything but ingest is open, whatever is presented; ingest still needs a key.
  ['open', 'public', NONE, {}, 'allow open *'],
  ['open', 'read', NONE, {}, 'allow open *'],
  ['open', 'read', INVALID, { project_id: 'beta' }, 'allow open beta'],
  ['open', 'read', KEY, { project_id: 'beta' }, 'allow open beta'],
  ['open', 'keys', NONE, { project_id: 'beta', environment: 'staging' }, 'allow open beta'],
  ['open', 'admin', NONE, {}, 'allow open *'],
  ['open', 'authenticated', NONE, {}, 'allow open *'],
  ['open', 'ingest', NONE, {}, '401 missing-key'],
  ['open', 'ingest', INVALID, {}, '401 invalid-key'],
  ['open', 'ingest', KEY, {}, 'allow key alpha'],
  // A public key: its project's scores, and a 403 everywhere else — the public routes too — in both modes.
  ...(['protected', 'open'] as const).flatMap((mode): [Mode, Access, Credential, Target, string][] => [
    [mode, 'score', PUBLIC_KEY, {}, 'allow key alpha'],
    ...(['public', 'read', 'write', 'ingest', 'keys', 'admin', 'authenticated', 'metrics'] as const).map(
      (access): [Mode, Access, Credential, Target, string] => [mode, access, PUBLIC_KEY, {}, '403 forbidden'],
    ),
  ]),
]

t.test('authorize: the table', async (t) => {
  for (const [mode, access, credential, target, expected] of rows) {
    t.equal(
      show(authorize(mode, credential, access, target)),
      expected,
      `${mode} ${access} ${credential.kind} ${JSON.stringify(target)}`,
    )
  }
})

t.test('a refusal names the project and environment involved, never a secret', async (t) => {
  const d = authorize('protected', KEY, 'read', { project_id: 'beta' })
  t.notOk(d.allow)
  if (!d.allow) t.match(d.message, /alpha.*beta/)
  const e = authorize('protected', KEY, 'keys', { project_id: 'alpha', environment: 'staging' })
  if (!e.allow) t.match(e.message, /production.*staging/)
})

t.test('inScope: null sees everything, a project only itself', async (t) => {
  t.ok(inScope(null, 'anything'))
  t.ok(inScope('alpha', 'alpha'))
  t.notOk(inScope('alpha', 'beta'))
})
