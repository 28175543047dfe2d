import * as Yaml from 'yaml';
import type Joi from 'joi';

import { PLANS } from '../plans';
import { scheduleError } from '../cron';
import { validationMessage, validationPreferences } from '../validation';
import { nestsDeeperThan } from './nesting';
import { serviceFileSchema, type ServiceFile } from './schema';

export type ServiceFileFormat = 'yaml' | 'json';

export class ServiceFileError extends Error { }

const MAX_BYTES = 256 * 1024;
const MAX_DEPTH = 32;                                           // of nestsDeeperThan's bound: real files need 4 levels, bound near 10

/** What a parser's error says about the text, without the text itself; nothing for an error that is not about it. */
function parseProblem(err: unknown): string {
    if (err instanceof Yaml.YAMLParseError && err.code !== 'RESOURCE_EXHAUSTION') {
        return `: ${err.message.split('\n')[0]}`;
    }

    return err instanceof SyntaxError ? `: ${err.message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')}` : '';
}

/** Parses YAML or JSON (JSON is YAML too, but its errors read better as JSON), then validates the schema and the
 * rules a schema cannot state: instances within the plan, valid cron schedules. */
export function parseServiceFile(content: string, format?: ServiceFileFormat): { file: ServiceFile; format: ServiceFileFormat } {
    if (Buffer.byteLength(content, 'utf8') > MAX_BYTES) {
        throw new ServiceFileError(`The service file is larger than ${MAX_BYTES / 1024} KiB`);
    }

    // The YAML composer recurses once per level: a file nested thousands of levels deep would exhaust the stack
    // after a long parse, so the depth is bounded first, by a scan that stops at the first line past the bound.
    if (nestsDeeperThan(content, MAX_DEPTH)) {
        throw new ServiceFileError('The service file is nested too deeply: its schema needs no more than 4 levels');
    }

    const detected = format ?? (/^\s*[{[]/.test(content) ? 'json' : 'yaml');
    let raw: unknown;
    try {
        raw = detected === 'json' ? JSON.parse(content) : Yaml.parse(content, { maxAliasCount: 50 });
    }
    catch (err) {
        throw new ServiceFileError(`The service file is not valid ${detected.toUpperCase()}${parseProblem(err)}`);
    }

    const { value, error } = serviceFileSchema.validate(raw, validationPreferences) as { value: unknown; error?: Joi.ValidationError };
    if (error) {
        const message = validationMessage(error, 'The service file');
        throw new ServiceFileError(message.startsWith('The service file') ? message : `The service file is invalid: ${message}`);
    }

    const file = value as ServiceFile;
    const plan = PLANS[file.app.plan];
    if (file.app.instances > plan.maxInstances) {
        throw new ServiceFileError(`The service file is invalid: "app.instances" must be at most ${plan.maxInstances} on the ${file.app.plan} plan`);
    }

    for (const job of file.cronJobs ?? []) {
        const problem = scheduleError(job.schedule);
        if (problem) {
            throw new ServiceFileError(`The service file is invalid: the schedule of cron job "${job.name}" ${problem}`);
        }
    }

    return { file, format: detected };
}

export function renderServiceFile(file: ServiceFile, format: ServiceFileFormat): string {
    return format === 'json' ? `${JSON.stringify(file, null, 2)}\n` : Yaml.stringify(file);
}
