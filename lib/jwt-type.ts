import * as Jose from 'jose';

/** The `typ` of a JWT's protected header, read without verifying anything: which kind of token to verify it as. */
export function jwtType(token: string): string | null {
    try {
        const typ = Jose.decodeProtectedHeader(token).typ;
        return typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : null;
    }
    catch {
        return null;
    }
}
