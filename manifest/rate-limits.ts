import type { RateLimitRule, RateLimitsConfig } from '../lib/rate-limit';
import type { Env } from './env';

// RATE_LIMIT_CREDENTIAL, RATE_LIMIT_SIGN_IN and RATE_LIMIT_SIGN_UP: `requests/seconds`, at most that many requests in
// each window of that many seconds (docs/scaling.md).
export type { RateLimitsConfig };

export const RATE_RULE_PATTERN = /^[1-9]\d{0,6}\/[1-9]\d{0,5}$/;

const rule = (text: string): RateLimitRule => {
    const [limit, windowSeconds] = text.split('/').map(Number);
    return { limit: limit, windowSeconds: windowSeconds };
};

export function rateLimitSettings(value: Env): RateLimitsConfig {
    return { credential: rule(value.RATE_LIMIT_CREDENTIAL), signIn: rule(value.RATE_LIMIT_SIGN_IN), signUp: rule(value.RATE_LIMIT_SIGN_UP) };
}
