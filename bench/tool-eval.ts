import type { Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';

import { stem, words } from '../lib/docs/search';

// A tool-use eval without a model: plain-language tasks, each with the tool and arguments an agent should choose,
// scored by a deterministic matcher that reads only what tools/list shows (names, titles, descriptions, input
// schemas). A description trimmed so far that its words no longer tell the tools apart, or a field whose name and
// description no longer say what it holds, loses points here. `npm run mcp:eval` prints the score; the tests keep it at 20/20.

export interface Task {
    say: string;
    tool: string;
    args: Record<string, unknown>;
}

const P = 'prj_4f9KqzT0aBcD1eFg';

export const TASKS: readonly Task[] = [
    { say: `List the apps of project ${P}`, tool: 'apps_list', args: { projectId: P } },
    { say: `Create a worker named queue-runner in project ${P}`, tool: 'workers_create', args: { name: 'queue-runner', projectId: P } },
    { say: 'Show me all my projects', tool: 'projects_list', args: {} },
    { say: 'Get the app named shop', tool: 'apps_get', args: { name: 'shop' } },
    { say: 'Delete the site called landing', tool: 'sites_delete', args: { name: 'landing' } },
    { say: 'Create a cron job named nightly-report with the schedule "0 3 * * *" and the start command "node report.js"', tool: 'cron_jobs_create', args: { name: 'nightly-report', schedule: '0 3 * * *', startCommand: 'node report.js' } },
    { say: 'Change the app named shop to 3 instances', tool: 'apps_patch', args: { name: 'shop', instances: 3 } },
    { say: 'Move the worker named mailer to the us-east region', tool: 'workers_patch', args: { name: 'mailer', region: 'us-east' } },
    { say: 'Create a database named orders on the pro tier', tool: 'databases_create', args: { name: 'orders', tier: 'pro' } },
    { say: `List the databases in project ${P}`, tool: 'databases_list', args: { projectId: P } },
    { say: `Rename project ${P}: its new name is "Marketing"`, tool: 'projects_patch', args: { projectId: P, name: 'Marketing' } },
    { say: 'Create a new project named "Side project"', tool: 'projects_create', args: { name: 'Side project' } },
    { say: `Delete project ${P}`, tool: 'projects_delete', args: { projectId: P } },
    { say: 'Show the connection details of the database named orders', tool: 'databases_get', args: { name: 'orders' } },
    { say: 'List my sites, 10 per page', tool: 'sites_list', args: { limit: 10 } },
    { say: `Make a static website named docs-site in project ${P}`, tool: 'sites_create', args: { name: 'docs-site', projectId: P } },
    { say: 'Change the cron job named nightly-report: schedule "30 4 * * 1-5"', tool: 'cron_jobs_patch', args: { name: 'nightly-report', schedule: '30 4 * * 1-5' } },
    { say: `List the cron jobs of project ${P}`, tool: 'cron_jobs_list', args: { projectId: P } },
    { say: 'Remove the background worker named old-bot', tool: 'workers_delete', args: { name: 'old-bot' } },
    { say: `Get project ${P}`, tool: 'projects_get', args: { projectId: P } }
];

// Everyday verbs for the five actions (the words tool names end with), read the same way in tasks and in tool text.
const SYNONYMS: Readonly<Record<string, string>> = { remove: 'delete', change: 'patch', rename: 'patch', move: 'patch', update: 'patch', make: 'create', add: 'create' };

const terms = (text: string) => words(text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')).map((word) => stem(SYNONYMS[word] ?? word));

interface Property {
    type?: string | string[];
    description?: string;
    enum?: string[];
}

const propertiesOf = (tool: ListedTool) => Object.entries((tool.inputSchema.properties ?? {}) as Record<string, Property>);

/** Each term of a tool with its weight: its name's words 3, its title and description 2, its fields' names and descriptions 1. */
export function toolTerms(tool: ListedTool): Map<string, number> {
    const weights = new Map<string, number>();
    const add = (text: string, weight: number) => terms(text).forEach((term) => weights.set(term, Math.max(weights.get(term) ?? 0, weight)));
    propertiesOf(tool).forEach(([name, property]) => add(`${name} ${property.description ?? ''}`, 1));
    add(`${tool.title ?? ''} ${tool.description ?? ''}`, 2);
    add(tool.name, 3);
    return weights;
}

/** The words of a task without the values it states (ids, names, quoted text), which say nothing of the tool. */
const VALUES = /\bprj_[0-9A-Za-z]{16}\b|\b(?:named|called)\s+(?:"[^"]*"|[a-z][a-z0-9-]*)|"[^"]*"/g;

/** The tool whose words best cover the task's, or null when two tie. */
export function chooseTool(say: string, tools: readonly ListedTool[]): ListedTool | null {
    const wanted = new Set(terms(say.replace(VALUES, ' ')));
    const scored = tools.map((tool) => {
        const weights = toolTerms(tool);
        return { tool, score: [...wanted].reduce((sum, term) => sum + (weights.get(term) ?? 0), 0) };
    }).sort((a, b) => b.score - a.score);
    return scored[0] && scored[0].score > (scored[1]?.score ?? -1) ? scored[0].tool : null;
}

const typeOf = (property: Property) => Array.isArray(property.type) ? property.type[0] : property.type;

/** The arguments a task states for a tool's fields: ids by their form, names after "named"/"called", choices by value, numbers and quoted text by the words beside them. */
export function extractArguments(say: string, tool: ListedTool): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    const properties = propertiesOf(tool);
    const has = (name: string) => properties.some(([key]) => key === name);
    let rest = say;

    const id = /\bprj_[0-9A-Za-z]{16}\b/.exec(rest);
    if (id && has('projectId')) {
        args.projectId = id[0];
        rest = rest.replace(id[0], ' ');
    }

    const named = /\b(?:named|called)\s+(?:"([^"]+)"|([a-z][a-z0-9-]*))/.exec(rest);
    if (named && has('name')) {
        args.name = named[1] ?? named[2];
        rest = rest.replace(named[0], ' ');
    }

    for (const [key, property] of properties) {
        const value = property.enum?.find((choice) => new RegExp(`(?<![\\w-])${choice.replace(/[-]/g, '\\-')}(?![\\w-])`, 'i').test(rest.replace(/"[^"]*"/g, ' ')));
        if (value !== undefined && args[key] === undefined) {
            args[key] = value;
        }
    }

    // A quoted text or a number goes to the field whose name or description shares most words with the few words beside it.
    const fieldFor = (context: string, type: string) => {
        const near = new Set(terms(context));
        const scored = properties.filter(([key, property]) => typeOf(property) === type && args[key] === undefined)
            .map(([key, property]) => ({ key, score: terms(`${key} ${key} ${property.description ?? ''}`).filter((term) => near.has(term)).length }))
            .sort((a, b) => b.score - a.score);
        return scored[0] && scored[0].score > 0 && scored[0].score > (scored[1]?.score ?? 0) ? scored[0].key : null;
    };

    for (const quoted of rest.matchAll(/"([^"]*)"/g)) {
        const before = rest.slice(0, quoted.index).split(/\s+/).slice(-4).join(' ');
        const key = fieldFor(before, 'string');
        if (key) {
            args[key] = quoted[1];
        }
    }

    const unquoted = rest.replace(/"[^"]*"/g, ' ');
    for (const number of unquoted.matchAll(/(?<![\w-])(\d+)(?![\w-])/g)) {
        const around = `${unquoted.slice(0, number.index).split(/\s+/).slice(-3).join(' ')} ${unquoted.slice(number.index + number[0].length).split(/\s+/).slice(0, 3).join(' ')}`;
        const key = fieldFor(around, 'integer');
        if (key) {
            args[key] = Number(number[1]);
        }
    }

    return args;
}

export interface EvalResult {
    task: Task;
    chosen: string | null;
    args: Record<string, unknown> | null;
    pass: boolean;
}

const same = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export function runEval(tools: readonly ListedTool[], tasks: readonly Task[] = TASKS): EvalResult[] {
    return tasks.map((task) => {
        const tool = chooseTool(task.say, tools);
        const args = tool ? extractArguments(task.say, tool) : null;
        return { task, chosen: tool?.name ?? null, args, pass: tool?.name === task.tool && !!args && same(args, task.args) };
    });
}
