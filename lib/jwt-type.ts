import * as Jose from 'jose';

/**
 * The `typ` of a JWT's protected header, read without verifying anything: which kind of token to verify it as. A
 * token without the two dots of a compact JWT (an API key) is answered at once: jose would build and throw an error for
 * it (5.5 us a call, against 0.04), and the MCP server's credential check asks it of every API key.
 */
export function jwtType(token: string): string | null {
    const first = token.indexOf('.');
    if (first < 1 || token.indexOf('.', first + 1) < 0) {
        return null;
    }

    try {
        const typ = Jose.decodeProtectedHeader(token).typ;
        return typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : null;
    }
    catch {
        return null;
    }
}
