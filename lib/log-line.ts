import { redact } from './redact';

/**
 * One line of the server's log: the entry as JSON after its `time`, credential-shaped text redacted, ending in a
 * newline. Every writer of the log stream (the request log, the database library's warnings) goes through here, so
 * the stream has one shape and no line skips redaction.
 */
export function logLine(entry: Record<string, unknown>): string {
    return `${redact(JSON.stringify({ time: new Date().toISOString(), ...entry }))}\n`;
}
