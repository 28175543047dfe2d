import Handlebars from 'handlebars';

import { redact } from '../redact';
import { CATEGORIES, MESSAGE_TYPES, type NotificationType } from './catalogue';

// Plain-text rendering of the catalogue: templates compiled once, strict (a missing value is the sender's bug and
// fails the change that sends it), nothing escaped (this is not HTML). Values pass through redact, so a value
// shaped like a credential never reaches a message; the footer says why the user receives it.
export type MessageValue = string | number | boolean | readonly string[];
export type MessageData = Readonly<Record<string, MessageValue>>;

export interface RenderContext {
    email: string;
    publicUrl: string;
}

interface Compiled {
    subject: Handlebars.TemplateDelegate;
    body: Handlebars.TemplateDelegate;
    names: string[];                                            // every value the two templates name
}

const handlebars = Handlebars.create();
const compile = (template: string) => handlebars.compile(template, { noEscape: true, strict: true });
const namesIn = (template: string): string[] => handlebars.parse(template).body
    .flatMap((statement) => statement.type === 'MustacheStatement' ? [((statement as hbs.AST.MustacheStatement).path as hbs.AST.PathExpression).original] : []);
const compiled = Object.fromEntries(Object.entries(MESSAGE_TYPES).map(([type, message]) => [type, {
    subject: compile(message.subject),
    body: compile(message.body),
    names: [...new Set([...namesIn(message.subject), ...namesIn(message.body)])]
}])) as Record<NotificationType, Compiled>;

const shown = (value: MessageValue): string => redact(Array.isArray(value) ? value.join(', ') : String(value));

function footer(type: NotificationType, publicUrl: string): string {
    const category = MESSAGE_TYPES[type].category;
    return CATEGORIES[category].required
        ? 'This is a security message about your account: it is always sent.'
        : `You receive this because ${category} messages are on for your account. Choose what you receive at ${publicUrl}/dashboard/account/notifications.`;
}

export function renderMessage(type: NotificationType, data: MessageData, context: RenderContext): { subject: string; body: string } {
    const values: Record<string, string> = { ...Object.fromEntries(Object.entries(data).map(([name, value]) => [name, shown(value)])), ...context };
    const missing = compiled[type].names.filter((name) => !Object.hasOwn(values, name));
    if (missing.length) {
        throw new Error(`A ${type} message needs ${missing.join(', ')}`);
    }

    const subject = compiled[type].subject(values).replace(/\s+/g, ' ').trim().slice(0, 300);
    return { subject, body: `${compiled[type].body(values)}\n\n-- \n${footer(type, context.publicUrl)}\n` };
}
