// What the platform sends, as data. A category is what a user switches on or off; a required category (security)
// cannot be switched off. A message type names its category and its plain-text subject and body, Handlebars
// templates over the data its sender passes (every name a template uses must be given: rendering is strict).
// Adding a message is one entry here and one `outbox.send(trx, { type, userId, data })` where its cause happens.

export interface Category {
    description: string;
    required: boolean;                                          // true: always sent, whatever the user chose
}

export interface MessageType {
    category: NotificationCategory;
    subject: string;
    body: string;
}

export const CATEGORIES = {
    security: { description: 'Sign-ins from a new address, and API keys created, rolled, leaked, used from a new address or about to expire. Always sent.', required: true },
    projects: { description: 'Invitations to join a project, or to work on one of its apps or workers.', required: false },
    billing: { description: 'Invoices issued to you, payments of them that failed, and your credit running low. Invoices and their state stay on the billing page either way.', required: false }
} as const satisfies Record<string, Category>;

export type NotificationCategory = keyof typeof CATEGORIES;

export const MESSAGE_TYPES = {
    'security.api_key_created': {
        category: 'security',
        subject: 'A new API key was created on your account: {{name}}',
        body: `An API key was created on your Hostless account {{email}}.

Name: {{name}}
Key: {{prefix}}
Scopes: {{scopes}}
Expires: {{expiresAt}}
Created: {{createdAt}} from {{ip}}

If you did not create it, revoke it now at {{publicUrl}}/dashboard/keys and change your password.`
    },
    'security.api_key_rolled': {
        category: 'security',
        subject: 'Your API key {{name}} was rolled',
        body: `The API key {{name}} ({{prefix}}) on your Hostless account {{email}} was given a new secret at {{rolledAt}}
from {{ip}}.

The previous token {{overlap}}

If you did not roll it, revoke the key now at {{publicUrl}}/dashboard/keys and change your password.`
    },
    'security.api_key_previous_secret_used': {
        category: 'security',
        subject: 'The old token of your API key {{name}} is still in use',
        body: `The token your API key {{name}} ({{prefix}}) had before it was rolled was used at {{usedAt}} from {{ip}}.

It keeps working until {{overlapEndsAt}} and is refused after that. Whatever still sends it needs the new token
before then. Every use of the old token is in your security trail ({{publicUrl}}/docs/authentication says where).

This message is sent once per roll.`
    },
    'security.api_key_new_address': {
        category: 'security',
        subject: 'Your API key {{name}} was used from a new address: {{ip}}',
        body: `The API key {{name}} ({{prefix}}) on your Hostless account {{email}} was used from an address it had not been
used from before.

Address: {{ip}}
Time: {{usedAt}}

If you expected this, there is nothing to do; you can limit the addresses a key is accepted from with its policy
({{publicUrl}}/docs/authentication). If you did not, revoke the key now at {{publicUrl}}/dashboard/keys.
At most one such message is sent per key a day; the security trail lists every new address.`
    },
    'security.api_key_leaked': {
        category: 'security',
        subject: 'Your API key {{name}} was found in public and revoked',
        body: `The API key {{name}} ({{prefix}}) on your Hostless account {{email}} was reported by {{reporter}} as published
where anyone can read it, and {{action}}

Where it was found: {{url}}
Reported: {{reportedAt}}

Remove it from that place and from its history, create a new key for whatever used this one, and check your
security trail for uses you do not recognise. {{publicUrl}}/docs/secret-scanning explains leak reports.`
    },
    'security.api_key_expiring': {
        category: 'security',
        subject: 'Your API key {{name}} expires {{when}}',
        body: `The API key {{name}} ({{prefix}}) on your Hostless account {{email}} expires at {{expiresAt}}, {{when}}.

After that it is refused. Create a new key (or roll this one before it expires: a roll keeps its expiry) and
update whatever uses it, at {{publicUrl}}/dashboard/keys.`
    },
    'security.sign_in_new_address': {
        category: 'security',
        subject: 'New sign-in to your account from {{ip}}',
        body: `Your Hostless account {{email}} was signed in to from an address it had not signed in from before.

Address: {{ip}}
Time: {{signedInAt}}

If this was you, there is nothing to do. If it was not, change your password at once: a new password ends every
other session ({{publicUrl}}/docs/authentication says how).`
    },
    'billing.invoice_issued': {
        category: 'billing',
        subject: 'Invoice {{invoiceId}} for {{project}}: {{total}}',
        body: `An invoice was issued for the project {{project}} for {{periodStart}} to {{periodEnd}} (UTC).

Invoice: {{invoiceId}}
Usage: {{subtotal}}
Credit applied: {{creditApplied}}
Total: {{total}}
{{state}}

Its lines and, once paid, its receipt are at {{publicUrl}}/dashboard/billing (or GET /v1/invoices/{{invoiceId}}).`
    },
    'billing.payment_failed': {
        category: 'billing',
        subject: 'Payment of invoice {{invoiceId}} for {{project}} failed',
        body: `A payment of {{total}} for the invoice {{invoiceId}} of the project {{project}} ({{periodStart}} to {{periodEnd}})
was attempted through {{provider}} at {{failedAt}} and failed: {{reason}}

The invoice is still due. Save another card or pay again at {{publicUrl}}/dashboard/billing
(or POST /v1/billing/pay/{{invoiceId}}).`
    },
    'billing.credit_low': {
        category: 'billing',
        subject: 'Your credit is running low: {{balance}} left',
        body: `The invoice {{invoiceId}} of the project {{project}} drew {{drawn}} from your account's credit, which leaves {{balance}}:
less than that invoice's usage of {{subtotal}}, so the next one may not be covered by credit.

What is not covered is charged to your saved card when the invoice is paid. Your credit and its history are at
{{publicUrl}}/dashboard/billing (or GET /v1/credit).`
    },
    'projects.invited': {
        category: 'projects',
        subject: '{{invitedBy}} invited you to the project {{project}}',
        body: `{{invitedBy}} invited you to join the project {{project}} on Hostless as {{role}}.

You become a member only if you accept. Accept or decline at {{publicUrl}}/dashboard/invitations
(or through the API: GET /v1/users/me/invitations). The invitation expires on {{expiresAt}}.`
    },
    'projects.collaborator_invited': {
        category: 'projects',
        subject: '{{invitedBy}} invited you to work on the {{kind}} {{resource}}',
        body: `{{invitedBy}} invited you to work on the {{kind}} {{resource}} on Hostless, with the permissions: {{permissions}}.

You get access only if you accept. Accept or decline at {{publicUrl}}/dashboard/invitations
(or through the API: GET /v1/users/me/invitations). The invitation expires on {{expiresAt}}.`
    }
} as const satisfies Record<string, MessageType>;

export type NotificationType = keyof typeof MESSAGE_TYPES;

export const CATEGORY_NAMES = Object.keys(CATEGORIES) as NotificationCategory[];

export function isCategory(name: string): name is NotificationCategory {
    return Object.hasOwn(CATEGORIES, name);
}
