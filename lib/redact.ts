import { isApiKey } from './api-key-token';

// Anything shaped like a credential is cut out of a log line or an event. Marked credentials, whatever the case of
// their marker (and Git hosts' tokens and Slack webhook paths, below): API keys (`svk_<prefix>_<secret>`; the public `svk_<prefix>` alone is kept), refresh tokens (`svr_`),
// OAuth client secrets, codes and refresh tokens (`svoa_`, `svor_`, `svos_`); and JWTs (`eyJ...`). An API key
// without its marker (`<prefix>_<secret>`, in a path say) is recognised by its shape and its checksum, so no
// ordinary word or identifier is taken for one.
const MARKED = /svk_[0-9a-z]+_[0-9a-z]+|svr_[0-9a-z]+|svo[ars]_[0-9a-z]+/gi;
// Git hosts' tokens by their documented prefixes (GitHub's gh*_ and github_pat_, GitLab's glpat-/gloas-/glrt-), and
// the secret path of a Slack incoming webhook.
const HOST_TOKENS = /\bgh[opsur]_[0-9A-Za-z]{20,}|\bgithub_pat_\w{20,}|\bgl(?:pat|oas|rt)-[\w-]{20,}|(hooks\.slack(?:-gov)?\.com\/services)\/[\w/-]+/g;
const JWT = /eyJ[\w-]*\.[\w-]*\.?[\w-]*/g;
const UNMARKED_KEY = /(?<![0-9A-Za-z])[0-9A-Za-z]{8,32}_[0-9A-Za-z]{38,122}(?![0-9A-Za-z])/g;
// The password of a URL's user information (`postgres://user:password@host`): a connection string printed by a build,
// or a database import's source.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):[^\s@/?#]*@/gi;

export function redact(text: string): string {
    return text
        .replace(MARKED, '[redacted]')
        .replace(HOST_TOKENS, (_match, slack?: string) => slack ? `${slack}/[redacted]` : '[redacted]')
        .replace(JWT, '[redacted]')
        .replace(URL_PASSWORD, '$1:[redacted]@')
        .replace(UNMARKED_KEY, (candidate) => isApiKey(candidate) ? '[redacted]' : candidate);
}
