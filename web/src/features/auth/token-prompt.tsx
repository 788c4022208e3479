// Protected mode: when the server answers 401, the viewer asks for a credential (the admin token or a project key),
// keeps it for this browser session, and retries everything with it (the live stream included).
import { type FormEvent, useState } from 'react'

export function TokenPrompt({ onSubmit, rejected }: { onSubmit: (token: string) => void; rejected: boolean }) {
  const [value, setValue] = useState('')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (value.trim() !== '') onSubmit(value.trim())
  }
  return (
    <div className="modal-back">
      <form className="modal" onSubmit={submit} aria-labelledby="token-title">
        <h1 id="token-title">This Loupe is protected</h1>
        <p className="muted">
          Enter the admin token, or a project API key to see that project only. It is kept for this browser session.
        </p>
        {rejected && (
          <div className="error-box" role="alert">
            That credential was refused.
          </div>
        )}
        <label>
          Token or API key
          <input
            type="password"
            autoComplete="off"
            // biome-ignore lint/a11y/noAutofocus: the prompt is the only thing on screen; typing must go to it.
            autoFocus
            value={value}
            onChange={(e) => setValue(e.target.value)}
            style={{ width: '100%' }}
            name="token"
          />
        </label>
        <button type="submit" className="primary">
          Continue
        </button>
      </form>
    </div>
  )
}
