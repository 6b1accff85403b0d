import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { SecretBox } from '../../platform/secrets/secret-box';
import { ConsoleFormsRepository, NoteKind } from './console-forms.repository';
import { ConsoleSession } from './console-sessions.repository';
import { CONSOLE_LIMITS, isFormToken, newFormToken } from './console.rules';
import { FormStillRunningError, FormTokenError } from './console.errors';

/** What each kind of note holds: what its page shows once. */
export interface NoteValues {
  apiKey: { apiKeyId: string; apiKey: string; label: string; test?: boolean };
  signingSecret: {
    /** Why it was issued: the subscription was added, or its secret rotated. */
    reason: 'created' | 'rotated';
    signingSecret: string;
    /** The v1a public key issued with it (not a secret, but shown beside the secret it belongs to). */
    publicKey?: string;
    previousSecretExpiresAt?: string;
  };
}

const REPEAT_POLL_MS = 100;

/**
 * No console form creates twice (docs/console.md, "Forms"). Every state-changing form carries a one-post
 * token: its first post claims it, does the work and records where the result is shown (the 303's
 * location); a repeat of that post (a double click, a resent form) does nothing and is sent to the same
 * place. A value shown once (a new key, a signing secret) is never in an answer to a post: it waits in a
 * note, sealed, for its session's next page, which deletes it as it shows it.
 */
@Injectable()
export class ConsoleFormsService {
  constructor(
    private readonly repository: ConsoleFormsRepository,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Runs `work` for the first post of the form's token and returns the path its result is shown at; a later
   * post of the same token returns that path without running anything (waiting a moment for a first post
   * still running). A failed `work` leaves the token unused: nothing was done, so posting it again may.
   */
  async once(session: ConsoleSession, token: string | undefined, work: () => Promise<string>): Promise<string> {
    if (!isFormToken(token)) throw new FormTokenError();
    const deadline = Date.now() + CONSOLE_LIMITS.repeatWaitMs;
    while (!(await this.repository.claim(session.accountId, session.id, token))) {
      const result = await this.repository.resultOf(session.accountId, token);
      if (result) return result;
      // undefined: the first post failed and gave the token back, so this one does the work (claiming again).
      if (result === null && Date.now() > deadline) throw new FormStillRunningError();
      if (result === null) await sleep(REPEAT_POLL_MS);
    }
    let location: string;
    try {
      location = await work();
    } catch (error) {
      await this.repository.release(session.accountId, token);
      throw error;
    }
    await this.repository.finish(session.accountId, token, location);
    return location;
  }

  /** Keeps a value to show once, on the session's next page; returns the note's id (for that page's path). */
  async keepNote<K extends NoteKind>(session: ConsoleSession, kind: K, subjectId: string, value: NoteValues[K]): Promise<string> {
    const id = newFormToken();
    await this.repository.insertNote({
      accountId: session.accountId,
      id,
      sessionId: session.id,
      kind,
      subjectId,
      sealed: this.secrets.seal(JSON.stringify(value), noteContext(id)),
      expiresAt: new Date(Date.now() + CONSOLE_LIMITS.noteMinutes * 60_000),
    });
    return id;
  }

  /**
   * The note's value, once: deleted as it is read. Undefined when it was shown already, has expired, or is
   * not this session's (of `subjectId`, when given).
   */
  async takeNote<K extends NoteKind>(session: ConsoleSession, id: string, kind: K, subjectId?: string): Promise<NoteValues[K] | undefined> {
    if (!isFormToken(id)) return undefined;
    const stored = await this.repository.takeNote(session.accountId, session.id, id, { kind, subjectId });
    return stored ? (JSON.parse(this.secrets.open(stored.sealed, noteContext(id))) as NoteValues[K]) : undefined;
  }
}

/** A note's sealed value opens for that note only (the SecretBox's associated data). */
const noteContext = (id: string) => `console-note:${id}`;
