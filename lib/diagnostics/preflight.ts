import * as Boom from '@hapi/boom';

import type { GitAccess } from '../git/access';
import { PLANS, type PlanName } from '../plans';
import type { RuntimeResource } from '../resources/model';
import { gitUrlProblem } from '../runtime/process/source';
import { parseServiceFile, ServiceFileError } from '../service-file/parse';

// A deployment's preflight: the repository reference, the size limits and an optional service file, checked without
// building, cloning or reserving anything. Each check states ok, failed, unavailable or inconclusive.

export interface PreflightInput {
    branch?: string;
    commitSha?: string;
    plan?: string;
    instances?: number;
    serviceFile?: string;
}

type CheckOutcome = 'ok' | 'failed' | 'unavailable' | 'inconclusive';
interface Check {
    check: string;
    outcome: CheckOutcome;
    detail: string;
}

const COMMAND_MAX = 4096;

async function repositoryCheck(git: GitAccess, resource: RuntimeResource, noun: string, path: string, input: PreflightInput, allowFileGit: boolean): Promise<Check> {
    if (!resource.repoProvider || !resource.repoName) {
        return { check: 'repository', outcome: 'unavailable', detail: `the ${noun} has no repository` };
    }

    const branch = input.branch ?? resource.repoBranch;
    if (resource.repoProvider === 'git') {
        const problem = gitUrlProblem(resource.repoName, allowFileGit);
        return problem ? { check: 'repository', outcome: 'failed', detail: problem }
            : { check: 'repository', outcome: 'inconclusive', detail: 'a plain Git URL is only reached when a deployment clones it; its address is allowed' };
    }

    try {
        const repository = await git.repositoryOf(resource, noun, path);
        const commits = await repository.provider.listCommits(repository.repo, { ...(branch ? { branch } : {}), limit: 1 });
        if (!commits.length) {
            return { check: 'repository', outcome: 'failed', detail: `branch ${branch ?? '(default)'} of ${resource.repoName} has no commits` };
        }

        return { check: 'repository', outcome: 'ok', detail: `${resource.repoProvider}:${resource.repoName} branch ${branch ?? '(default)'} is at ${commits[0].sha}` };
    }
    catch (err) {
        if (Boom.isBoom(err) && err.output.statusCode === 404) {
            return { check: 'repository', outcome: 'failed', detail: err.message };
        }

        if (Boom.isBoom(err) && err.output.statusCode === 409) {
            return { check: 'repository', outcome: 'unavailable', detail: err.message };
        }

        return { check: 'repository', outcome: 'inconclusive', detail: `the Git host could not be asked: ${(err as Error).message}` };
    }
}

function limitsCheck(resource: RuntimeResource, input: PreflightInput): Check {
    const planName = (input.plan ?? resource.plan) as PlanName;
    const plan = PLANS[planName];
    const instances = input.instances ?? resource.instances;
    const problems: string[] = [];
    if (!plan) {
        problems.push(`plan ${planName} does not exist`);
    }
    else if (instances < plan.minInstances || instances > plan.maxInstances) {
        problems.push(`${instances} instances are outside the ${planName} plan's ${plan.minInstances} to ${plan.maxInstances}`);
    }

    for (const [name, command] of [['buildCommand', resource.buildCommand], ['startCommand', resource.startCommand]] as const) {
        if (command && command.length > COMMAND_MAX) {
            problems.push(`${name} is longer than ${COMMAND_MAX} characters`);
        }
    }

    return problems.length ? { check: 'limits', outcome: 'failed', detail: problems.join('; ') } : { check: 'limits', outcome: 'ok', detail: `${instances} x ${planName} fits the plan's bounds` };
}

function serviceFileCheck(content: string | undefined): Check {
    if (content === undefined) {
        return { check: 'serviceFile', outcome: 'unavailable', detail: 'no service file was given' };
    }

    try {
        const { file, format } = parseServiceFile(content);
        return { check: 'serviceFile', outcome: 'ok', detail: `a valid ${format} service file for ${file.app.name}: ${file.workers?.length ?? 0} workers, ${file.cronJobs?.length ?? 0} cron jobs, ${file.databases?.length ?? 0} databases` };
    }
    catch (err) {
        if (err instanceof ServiceFileError) {
            return { check: 'serviceFile', outcome: 'failed', detail: err.message };
        }

        throw err;
    }
}

export async function preflight(git: GitAccess, resource: RuntimeResource, where: { noun: string; path: string; allowFileGit: boolean }, input: PreflightInput) {
    const checks: Check[] = [];
    if (input.commitSha && !/^[0-9a-f]{7,40}$/.test(input.commitSha)) {
        checks.push({ check: 'commitSha', outcome: 'failed', detail: 'a commit sha is 7 to 40 lowercase hex digits' });
    }

    checks.push(await repositoryCheck(git, resource, where.noun, where.path, input, where.allowFileGit), limitsCheck(resource, input), serviceFileCheck(input.serviceFile));
    const ready = !checks.some((check) => check.outcome === 'failed');
    return { outcome: 'ok', ready, built: false, reserved: false, checks };
}
