import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

import * as Boom from '@hapi/boom';
import Busboy from 'busboy';
import type Joi from 'joi';

import { validationMessage, validationPreferences } from './validation';

// multipart/form-data read as a stream with busboy (api-contract.md section 9): the text parts before the file are
// read and validated first (a JSON `metadata` part is the request's body: what the access pipeline takes a
// projectId from), and the file part is handed over unread, so the access checks run before a byte of it is used.
export interface MultipartSpec {
    body?: { part: string; schema: Joi.ObjectSchema };          // a JSON part that is the body (metadata); {} without it
    text?: readonly string[];                                   // plain text parts allowed before the file (a form's token)
    file: string;                                               // the one file part's name
    maxBytes: number;                                           // the whole request (hapi refuses a larger Content-Length with 413)
}

export interface FilePart {
    filename: string;
    mimeType: string;
    stream: Readable;
}

export interface MultipartForm {
    body: Record<string, unknown>;
    text: Record<string, string | undefined>;                   // the spec's text parts, as sent
    file: FilePart | null;
    /** Settles when the whole request was read: rejects on a part after the file or a malformed ending. */
    finished: Promise<void>;
    /** Stops reading (after a refusal): the rest of the request is discarded. */
    abandon(): void;
}

const refusal = (message: string) => Boom.badRequest(message);

export function readForm(input: Readable, headers: IncomingHttpHeaders, spec: MultipartSpec): Promise<MultipartForm> {
    let parser: Busboy.Busboy;
    try {
        parser = Busboy({ headers, limits: { fields: 4, fieldSize: 64 * 1024, files: 1, parts: 6, headerPairs: 50 } });
    }
    catch {
        throw refusal('The request body must be multipart/form-data with a boundary');
    }

    const fields = new Map<string, string>();
    let settled = false;
    let finish!: { resolve: () => void; reject: (err: Error) => void };
    const finished = new Promise<void>((resolve, reject) => {
        finish = { resolve, reject };
    });
    finished.catch(() => { });
    const abandon = () => {
        input.unpipe(parser);
        parser.removeAllListeners('file');
        parser.on('error', () => { });
        input.resume();
    };

    return new Promise<MultipartForm>((resolve, reject) => {
        const fail = (err: Error) => {
            if (!settled) {
                settled = true;
                abandon();
                reject(err);
            }
            else {
                finish.reject(err);
            }
        };

        const form = (file: FilePart | null): MultipartForm => {
            const raw = spec.body ? fields.get(spec.body.part) : undefined;
            let body: Record<string, unknown> = {};
            if (spec.body) {
                let parsed: unknown;
                try {
                    parsed = raw === undefined ? undefined : JSON.parse(raw);
                }
                catch {
                    throw refusal(`The "${spec.body.part}" part must be a JSON object`);
                }

                if (parsed === undefined) {
                    throw refusal(file
                        ? `The "${spec.body.part}" part must come before the "${spec.file}" part`
                        : `The "${spec.body.part}" part is required`);
                }

                const result: Joi.ValidationResult<Record<string, unknown>> = spec.body.schema.prefs(validationPreferences).validate(parsed);
                if (result.error) {
                    throw refusal(`The "${spec.body.part}" part is not valid: ${validationMessage(result.error, 'The request body')}`);
                }

                body = result.value;
            }

            return { body, text: Object.fromEntries((spec.text ?? []).map((name) => [name, fields.get(name)])), file, finished, abandon };
        };

        parser.on('field', (name, value, info) => {
            if (info.valueTruncated) {
                return fail(refusal(`The "${name}" part is longer than 64 KiB`));
            }

            if (settled) {
                return fail(refusal(`The "${name}" part comes after the "${spec.file}" part: send it first`));
            }

            if (name !== spec.body?.part && !spec.text?.includes(name)) {
                return fail(refusal(`The multipart part "${name}" is not expected here${spec.body ? `: send "${spec.body.part}" (JSON), then "${spec.file}"` : `: send only "${spec.file}"`}`));
            }

            fields.set(name, value);
        });
        parser.on('file', (name, stream, info) => {
            if (settled) {
                stream.resume();
                return fail(refusal(`Send one "${spec.file}" part only`));
            }

            if (name !== spec.file) {
                stream.resume();
                return fail(refusal(`The multipart part "${name}" is not expected here: the file goes in the "${spec.file}" part`));
            }

            try {
                const ready = form({ filename: info.filename ?? '', mimeType: info.mimeType, stream });
                settled = true;
                resolve(ready);
            }
            catch (err) {
                stream.resume();
                fail(err as Error);
            }
        });
        parser.on('filesLimit', () => fail(refusal(`Send one "${spec.file}" part only`)));
        parser.on('partsLimit', () => fail(refusal('The multipart body has too many parts')));
        parser.on('fieldsLimit', () => fail(refusal('The multipart body has too many parts')));
        parser.on('error', (err: Error) => fail(refusal(`The multipart body could not be read (${err.message})`)));
        parser.on('close', () => {
            if (!settled) {
                try {
                    const ready = form(null);
                    settled = true;
                    resolve(ready);
                }
                catch (err) {
                    fail(err as Error);
                }
            }

            finish.resolve();
        });
        input.on('error', (err) => fail(err));
        input.pipe(parser);
    });
}

/** A header value as a part's header carries it: quotes, backslashes and line breaks replaced, ASCII only. */
const headerSafe = (value: string) => value.replace(/["\\\r\n]|[^\x20-\x7e]/g, '_');

/** One file as a multipart/form-data body of a single part named `name` (what an upload is sent on as). */
export async function* singleFileBody(boundary: string, name: string, file: FilePart): AsyncGenerator<Buffer> {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${headerSafe(name)}"; filename="${headerSafe(file.filename)}"\r\nContent-Type: ${headerSafe(file.mimeType)}\r\n\r\n`);
    for await (const chunk of file.stream) {
        yield chunk as Buffer;
    }

    yield Buffer.from(`\r\n--${boundary}--\r\n`);
}
