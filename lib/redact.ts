// Anything shaped like a credential is cut out of a log line or an event: API keys (`svk_<prefix>_<secret>`; the
// public `svk_<prefix>` alone is kept), refresh tokens and JWTs.
const CREDENTIAL = /svk_[0-9A-Za-z]+_[0-9A-Za-z]+|svr_[0-9A-Za-z]+|eyJ[\w-]*\.[\w-]*\.?[\w-]*/g;

export function redact(text: string): string {
    return text.replace(CREDENTIAL, '[redacted]');
}
