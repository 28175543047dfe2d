import type * as Nodemailer from 'nodemailer';

import { redact } from '../redact';

// The SMTP adapter: nodemailer's SMTP transport, configured by one URL (smtp:// with STARTTLS when the server offers
// it, smtps:// for TLS from the first byte; user and password in the URL; nodemailer's options as query
// parameters, e.g. ?requireTLS=true). What it reports back (a server's reply, an error) never holds the URL's
// credentials.

export interface OutgoingMail {
    to: string;
    subject: string;
    text: string;
}

export interface MailReceipt {
    response: string;
    responseCode: number | null;
}

/** A delivery that did not happen; `permanent` when the server refused the message for good (5xx but 503). */
export class MailFailure extends Error {
    constructor(readonly response: string, readonly responseCode: number | null, readonly permanent: boolean) {
        super(response);
    }
}

export interface Mailer {
    send(mail: OutgoingMail, signal: AbortSignal): Promise<MailReceipt>;
    close(): void;
}

export interface SmtpOptions {
    url: string;
    from: string;
}

const MAX_RESPONSE = 500;

interface SmtpError extends Error {
    code?: string;
    response?: string;
    responseCode?: number;
    permanent?: boolean;
}

export class SmtpMailer implements Mailer {
    private readonly transport: Nodemailer.Transporter;
    private readonly secrets: string[];

    constructor(options: SmtpOptions) {
        const url = new URL(options.url);
        this.secrets = [url.password, decoded(url.password), url.username, decoded(url.username)].filter((part) => part.length >= 3);
        // nodemailer is loaded by the first mailer, not by every process: most send no mail.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        this.transport = (require('nodemailer') as typeof Nodemailer).createTransport({
            url: options.url,
            connectionTimeout: 15_000,
            greetingTimeout: 15_000,
            socketTimeout: 60_000,
            logger: false
        }, { from: options.from });
    }

    async send(mail: OutgoingMail, signal: AbortSignal): Promise<MailReceipt> {
        try {
            const info = await this.transport.sendMail({ ...mail, signal });
            const response = info.response ?? 'accepted';
            return { response: this.clean(response), responseCode: replyCode(response) };
        }
        catch (err) {
            const error = err as SmtpError;
            const said = error.response ?? [error.code, error.message].filter(Boolean).join(': ');
            throw new MailFailure(this.clean(said), error.responseCode ?? null, error.permanent === true);
        }
    }

    close(): void {
        this.transport.close();
    }

    private clean(text: string): string {
        const scrubbed = this.secrets.reduce((current, secret) => current.split(secret).join('[redacted]'), text);
        return redact(scrubbed).replace(/\s+/g, ' ').trim().slice(0, MAX_RESPONSE);
    }
}

function decoded(part: string): string {
    try {
        return decodeURIComponent(part);
    }
    catch {
        return part;
    }
}

function replyCode(response: string): number | null {
    const match = /^([2-5]\d\d)[ -]/.exec(response);
    return match ? Number(match[1]) : null;
}
