import type { Knex } from 'knex';

import type { LogStore } from './logs';

// How long the history of runtime resources is kept (LOG_RETENTION_DAYS, docs/configuration.md): log lines of every
// stream, and finished cron runs. An hourly job deletes what is older; a run still queued or running stays.
export const HISTORY_PRUNE_JOB = 'resources.history-prune';
export const HISTORY_PRUNE_PERIOD_MS = 3600_000;

const FINISHED_RUNS = ['succeeded', 'failed', 'recorded'];

export async function pruneHistory(knex: Knex, logs: LogStore, retentionDays: number, now: number): Promise<{ lines: number; runs: number }> {
    const before = new Date(now - retentionDays * 86_400_000).toISOString();
    const runs = await knex('cron_runs').where('created_at', '<', before).whereIn('status', FINISHED_RUNS).delete();
    const lines = await logs.prune(before);
    return { lines, runs };
}
