import * as Yaml from 'yaml';

import { PLANS } from '../plans';
import { scheduleError } from '../cron';
import { validationMessages } from '../validation';
import { serviceFileSchema, type ServiceFile } from './schema';

export type ServiceFileFormat = 'yaml' | 'json';

export class ServiceFileError extends Error { }

const MAX_BYTES = 256 * 1024;

/** Parses YAML or JSON (JSON is YAML too, but its errors read better as JSON), then validates the schema and the
 * rules a schema cannot state: instances within the plan, valid cron schedules. */
export function parseServiceFile(content: string, format?: ServiceFileFormat): { file: ServiceFile; format: ServiceFileFormat } {
    if (Buffer.byteLength(content, 'utf8') > MAX_BYTES) {
        throw new ServiceFileError(`The service file is larger than ${MAX_BYTES / 1024} KiB`);
    }

    const detected = format ?? (/^\s*[{[]/.test(content) ? 'json' : 'yaml');
    let raw: unknown;
    try {
        raw = detected === 'json' ? JSON.parse(content) : Yaml.parse(content, { maxAliasCount: 50 });
    }
    catch (err) {
        throw new ServiceFileError(`The service file is not valid ${detected.toUpperCase()}: ${(err as Error).message.split('\n')[0]}`);
    }

    const { value, error } = serviceFileSchema.validate(raw, { messages: validationMessages, errors: { wrap: { label: '"' } } });
    if (error) {
        throw new ServiceFileError(`The service file is invalid: ${error.details[0]!.message}`);
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
