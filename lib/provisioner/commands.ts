import * as ChildProcess from 'node:child_process';

// Runs one of PostgreSQL's client tools (pg_dump, pg_restore) with its settings in a clean environment (nothing of
// this process's environment but PATH reaches it), its diagnostics read line by line as it works, and the process
// ended when the signal aborts. The arguments never hold a password nor a URL.
export interface ToolRun {
    binary: string;
    args: readonly string[];
    env: Readonly<Record<string, string>>;
    signal: AbortSignal;
    onLine(line: string): void;
}

export interface ToolResult {
    code: number | null;
    signal: NodeJS.Signals | null;
    errors: string[];                                           // the lines that report an error, last ones kept
}

const KEPT_ERRORS = 5;

export function runTool(run: ToolRun): Promise<ToolResult> {
    return new Promise((resolve, reject) => {
        if (run.signal.aborted) {
            reject(run.signal.reason instanceof Error ? run.signal.reason : new Error('The import was stopped'));
            return;
        }

        const child = ChildProcess.spawn(run.binary, [...run.args], { env: { ...run.env }, stdio: ['ignore', 'ignore', 'pipe'] });
        const errors: string[] = [];
        let pending = '';
        const emit = (line: string) => {
            if (!line.trim()) {
                return;
            }

            if (/\b(error|fatal|FATAL|ERROR)\b/.test(line)) {
                errors.push(line.trim());
                errors.splice(0, Math.max(0, errors.length - KEPT_ERRORS));
            }

            run.onLine(line);
        };

        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
            pending += chunk;
            const lines = pending.split('\n');
            pending = lines.pop()!;
            lines.forEach(emit);
        });

        let killer: NodeJS.Timeout | null = null;
        const abort = () => {
            child.kill('SIGTERM');
            killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        };
        run.signal.addEventListener('abort', abort, { once: true });

        child.on('error', (err) => {
            run.signal.removeEventListener('abort', abort);
            reject(err);
        });
        child.on('close', (code, signal) => {
            run.signal.removeEventListener('abort', abort);
            if (killer) {
                clearTimeout(killer);
            }

            emit(pending);
            resolve({ code, signal, errors });
        });
    });
}
