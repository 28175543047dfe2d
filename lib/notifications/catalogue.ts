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
    security: { description: 'Sign-ins from a new address and new API keys on your account. Always sent.', required: true },
    projects: { description: 'Invitations to join a project, or to work on one of its apps or workers.', required: false }
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
    'security.sign_in_new_address': {
        category: 'security',
        subject: 'New sign-in to your account from {{ip}}',
        body: `Your Hostless account {{email}} was signed in to from an address it had not signed in from before.

Address: {{ip}}
Time: {{signedInAt}}

If this was you, there is nothing to do. If it was not, change your password at once: a new password ends every
other session ({{publicUrl}}/docs/authentication says how).`
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
