/** ISO 8601 UTC with milliseconds, the only time format on the wire and in the database. */
export function nowIso(): string {
    return new Date().toISOString();
}

export function isoIn(ms: number): string {
    return new Date(Date.now() + ms).toISOString();
}

export function toIso(value: Date | string | number): string {
    return new Date(value).toISOString();
}
