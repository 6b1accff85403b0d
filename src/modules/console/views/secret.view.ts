import { standardWebhooksSecret } from '../../webhooks/subscriptions/webhook-subscription.rules';
import type { NoteValues } from '../console-forms.service';
import { copyBox, html, Html, id, when } from './html';
import { Frame, page } from './layout';

const TITLES: Record<NoteValues['signingSecret']['reason'], string> = {
  created: 'Subscription added',
  rotated: 'Signing secret rotated',
};

/**
 * The one time a signing secret is shown (from its note): as the API returns it (the spec's HMAC key, its
 * own bytes), as Standard Webhooks libraries take it (whsec_ + base64 of those bytes), and beside it the
 * v1a public key issued with it.
 */
export function secretShownPage(frame: Frame, subscriptionId: string, note: NoteValues['signingSecret']): Html {
  return page(
    frame,
    'webhooks',
    TITLES[note.reason],
    html`<div class="secret-box">
        <p>
          <strong>Copy the signing secret now: it will not be shown again.</strong>
          ${
            note.reason === 'rotated' && note.previousSecretExpiresAt
              ? html`Until ${when(note.previousSecretExpiresAt)} deliveries carry signatures with both the new and the previous secret; then
                only the new one.`
              : 'Your endpoint verifies each delivery with it (Standard Webhooks signatures).'
          }
        </p>
        ${copyBox('secret', 'Signing secret, as the API returns it (HMAC key for v1: use its own bytes)', note.signingSecret, {
          secret: 'signing',
          button: 'Copy secret',
        })}
        ${copyBox(
          'whsec',
          html`The same secret for Standard Webhooks libraries (<code>standardwebhooks</code>, <code>svix</code>:
            <code>new Webhook(secret)</code>)`,
          standardWebhooksSecret(note.signingSecret),
          { secret: 'whsec', button: 'Copy whsec_ secret' },
        )}
        ${
          note.publicKey
            ? copyBox(
                'public-key',
                'v1a public key (not a secret: verifies the v1a signatures; also on the subscription page)',
                note.publicKey,
                {
                  button: 'Copy public key',
                },
              )
            : ''
        }
      </div>
      <p><a href="/console/webhooks/${subscriptionId}">Go to the subscription</a> ${id(subscriptionId)}</p>`,
  );
}

/** What the secret's page says once it was shown (a reload, a repeated form): nothing was changed again. */
export function secretGonePage(frame: Frame, subscriptionId: string): Html {
  return page(
    frame,
    'webhooks',
    'Secret already shown',
    html`<p>
        A signing secret is shown once: this one was shown already, and nothing was changed again. If it was not copied, rotate the secret
        on the subscription's settings page (the current one keeps signing for 24 hours beside the new one).
      </p>
      <p><a href="/console/webhooks/${subscriptionId}">Go to the subscription</a></p>`,
  );
}
