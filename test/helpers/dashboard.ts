import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { PASSWORD, uniqueEmail } from './api';

// A browser over server.inject: it keeps the cookies the server sets, and posts forms the way a page does, with the
// form token of the last page it read (unless told otherwise).

export type Form = Record<string, string | string[]>;

export class Visitor {
    readonly cookies = new Map<string, string>();
    last: ServerInjectResponse<any> | null = null;

    constructor(private readonly server: Server) { }

    async get(url: string): Promise<ServerInjectResponse<any>> {
        return this.send('GET', url);
    }

    /** Posts a urlencoded form; `csrf: null` leaves the form token out, a string sends that one instead. */
    async post(url: string, form: Form = {}, options: { csrf?: string | null } = {}): Promise<ServerInjectResponse<any>> {
        const token = options.csrf === undefined ? this.formToken() : options.csrf;
        const body = new URLSearchParams();
        for (const [name, value] of Object.entries({ ...form, ...(token === null ? {} : { csrf: token }) })) {
            for (const item of Array.isArray(value) ? value : [value]) {
                body.append(name, item);
            }
        }

        return this.send('POST', url, body.toString());
    }

    /** Posts a multipart form as a browser sends a file input: the form token first, then the file. */
    async upload(url: string, file: { name: string; filename: string; content: Buffer }, options: { csrf?: string | null } = {}): Promise<ServerInjectResponse<any>> {
        const token = options.csrf === undefined ? this.formToken() : options.csrf;
        const boundary = `----browser${Date.now().toString(16)}`;
        const payload = Buffer.concat([
            Buffer.from(token === null ? '' : `--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${token}\r\n`),
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
            file.content,
            Buffer.from(`\r\n--${boundary}--\r\n`)
        ]);
        return this.send('POST', url, payload, `multipart/form-data; boundary=${boundary}`);
    }

    /** The form token of the last page read. */
    formToken(): string {
        const match = /name="csrf" value="([^"]+)"/.exec(this.last?.payload ?? '');
        if (!match) {
            throw new Error(`the last page (${this.last?.request.url.pathname}) has no form token`);
        }

        return match[1];
    }

    cookieHeader(): string {
        return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }

    private async send(method: string, url: string, payload?: string | Buffer, contentType = 'application/x-www-form-urlencoded'): Promise<ServerInjectResponse<any>> {
        const headers: Record<string, string> = {};
        if (this.cookies.size) {
            headers.cookie = this.cookieHeader();
        }

        if (payload !== undefined) {
            headers['content-type'] = contentType;
        }

        const res = await this.server.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
        for (const line of setCookies(res)) {
            const [pair, ...attributes] = line.split(';');
            const [name, ...value] = pair.split('=');
            const cleared = attributes.some((attribute) => /^\s*max-age=0$/i.test(attribute) || /^\s*expires=thu, 01 jan 1970/i.test(attribute));
            if (cleared) {
                this.cookies.delete(name.trim());
            }
            else {
                this.cookies.set(name.trim(), value.join('='));
            }
        }

        this.last = res;
        return res;
    }
}

export function setCookies(res: ServerInjectResponse<any>): string[] {
    const header = res.headers['set-cookie'];
    return header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
}

/** A visitor who signed up through the sign-up page and is signed in. */
export async function signedUp(server: Server, tag = 'dash'): Promise<{ visitor: Visitor; email: string; password: string }> {
    const visitor = new Visitor(server);
    const email = uniqueEmail(tag);
    await visitor.get('/dashboard/sign-up');
    const res = await visitor.post('/dashboard/sign-up', { name: tag, email, password: PASSWORD });
    if (res.statusCode !== 302) {
        throw new Error(`sign-up failed: ${res.statusCode}`);
    }

    return { visitor, email, password: PASSWORD };
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&#x27;': '\'', '&#x3D;': '=', '&#x60;': '`', '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** The text of a page without its tags, entities decoded, whitespace collapsed: what a person reads. */
export function pageText(html: string): string {
    return html.replace(/<[^>]+>/g, ' ').replace(/&(?:quot|#x27|#x3D|#x60|lt|gt|amp);/g, (entity) => ENTITIES[entity]).replace(/\s+/g, ' ').trim();
}
