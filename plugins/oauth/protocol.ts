import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

// The wire of the token and revocation endpoints (RFC 6749 section 5, RFC 7009): form parameters, each at most once;
// errors as `{ error, error_description }` with the registered codes, never cached. These endpoints answer in the
// protocol's shape, not the API's Boom shape, because OAuth clients parse `error`.
export type OAuthErrorCode =
    | 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type'
    | 'invalid_scope' | 'invalid_target' | 'access_denied' | 'unsupported_response_type';

export class OAuthError extends Error {
    constructor(readonly code: OAuthErrorCode, readonly description: string) {
        super(description);
    }
}

export type Params = Readonly<Record<string, string | undefined>>;

/** The request's parameters as single strings; a repeated one is refused (RFC 6749 section 3.1). */
export function singleParams(source: unknown): Params {
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries((source as Record<string, unknown> | null) ?? {})) {
        if (typeof value !== 'string') {
            throw new OAuthError('invalid_request', `The parameter "${name.slice(0, 64)}" must be sent once`);
        }

        if (value !== '') {
            params[name] = value;
        }
    }

    return params;
}

export function required(params: Params, name: string): string {
    const value = params[name];
    if (value === undefined) {
        throw new OAuthError('invalid_request', `The parameter "${name}" is required`);
    }

    return value;
}

export function noStore(response: ResponseObject): ResponseObject {
    return response.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** An error of the token or revocation endpoint: 401 for client authentication (with the scheme the client used). */
export function errorResponse(h: ResponseToolkit, err: OAuthError, usedBasic: boolean): ResponseObject {
    const response = noStore(h.response({ error: err.code, error_description: err.description }).code(err.code === 'invalid_client' ? 401 : 400));
    return err.code === 'invalid_client' && usedBasic ? response.header('www-authenticate', 'Basic realm="hostless", charset="UTF-8"') : response;
}

export interface PresentedClient {
    clientId: string;
    secret: string | null;
    basic: boolean;                                             // the credentials came in `Authorization: Basic`
}

const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));

/** The client's identity at the token and revocation endpoints: client_secret_basic, client_secret_post, or none. */
export function presentedClient(request: Request, params: Params): PresentedClient {
    const header = request.headers.authorization as string | undefined;
    const basic = header ? /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header.trim()) : null;
    if (header && !basic) {
        throw new OAuthError('invalid_client', 'Client authentication must use the Basic scheme');
    }

    if (basic) {
        const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        let pair: [string, string] | null = null;
        try {
            pair = colon > 0 ? [formDecode(decoded.slice(0, colon)), formDecode(decoded.slice(colon + 1))] : null;
        }
        catch { }

        if (!pair) {
            throw new OAuthError('invalid_client', 'The Basic credentials are malformed');
        }

        if (params.client_secret !== undefined || (params.client_id !== undefined && params.client_id !== pair[0])) {
            throw new OAuthError('invalid_request', 'Use one client authentication method: Basic or form parameters, not both');
        }

        return { clientId: pair[0], secret: pair[1], basic: true };
    }

    return { clientId: required(params, 'client_id'), secret: params.client_secret ?? null, basic: false };
}
