/**
 * Where the back office's sessions live: express-session's MemoryStore (one process, lost on
 * restart, as an example needs), with the sessions of visitors who are not signed in bounded.
 * Each view of the login page keeps a session for its CSRF token, so without a bound anyone
 * could fill the shop's memory by asking for that page. Past the bound the oldest such session
 * goes (its login form then asks to be opened again); a signed-in operator's session is never
 * dropped to make room. A real shop plugs a shared store with its own expiry instead.
 */
import session, { type SessionData } from 'express-session';

/** Most sessions kept for visitors who are not signed in. */
export const ANONYMOUS_SESSIONS = 1_000;

/** The MemoryStore with at most {@link ANONYMOUS_SESSIONS} sessions of visitors not signed in. */
export class AdminSessionStore extends session.MemoryStore {
  /** Ids of the sessions not signed in, oldest first. */
  readonly #anonymous = new Set<string>();

  override set(sid: string, sess: SessionData, callback?: (err?: unknown) => void): void {
    this.#anonymous.delete(sid);
    if (!sess.admin) {
      this.#anonymous.add(sid);
      if (this.#anonymous.size > ANONYMOUS_SESSIONS) {
        const oldest = this.#anonymous.values().next().value as string;
        this.#anonymous.delete(oldest);
        super.destroy(oldest);
      }
    }
    super.set(sid, sess, callback);
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.#anonymous.delete(sid);
    super.destroy(sid, callback);
  }
}
