import * as Crypto from 'node:crypto';
import { Readable } from 'node:stream';

import * as Boom from '@hapi/boom';
import Joi from 'joi';

import { ARCHIVE_LIMITS } from '../../../lib/archives';
import { readForm, singleFileBody, type MultipartSpec } from '../../../lib/multipart';
import type { RouteHandlers } from '../../../lib/route-table';
import { required } from '../api';
import { formSchema, text } from '../forms';
import { page, type PageDeps } from '../page';
import { params, type Firewall, type FirewallRule, type ResourceKit } from '../resource-tabs';
import { checkFormToken } from '../session';

// The forms of a resource page's tabs beyond the common ones: a site's upload, a worker process's instances, an app
// cron job's buttons, a collaborator's removal, a virtual machine's firewall and size. Each acts through the API with
// the visitor's session and shows its answer on the tab.

const processParams = params.keys({ workerId: Joi.string().max(64).required() });
const cronJobParams = params.keys({ jobId: Joi.string().max(64).required(), action: Joi.string().valid('run', 'pause', 'resume').required() });

const sameRule = (a: FirewallRule, b: FirewallRule) => a.protocol === b.protocol && (a.ports ?? '') === (b.ports ?? '') && a.source === b.source;
/** A rule as the API takes it back (a description only when it has one). */
const kept = (rule: FirewallRule): FirewallRule => ({ protocol: rule.protocol, source: rule.source, ...(rule.ports ? { ports: rule.ports } : {}), ...(rule.description ? { description: rule.description } : {}) });
const ruleText = (rule: FirewallRule) => `${rule.protocol}${rule.ports ? ` ${rule.ports}` : ''} from ${rule.source}`;

/** A site's upload form: its form token first, then the archive, read as a stream and sent on to the API as one. */
const UPLOAD_FORM: MultipartSpec = { text: ['csrf'], file: 'archive', maxBytes: ARCHIVE_LIMITS.compressedBytes + 64 * 1024 };

// What each of an app cron job's buttons sends, and the notice after it.
const CRON_JOB_ACTIONS = {
    run: { method: 'POST', suffix: '/run', body: undefined, done: 'A run is started.' },
    pause: { method: 'PATCH', suffix: '', body: { status: 'paused' }, done: 'The cron job is paused.' },
    resume: { method: 'PATCH', suffix: '', body: { status: 'active' }, done: 'The cron job is resumed.' }
} as const;

export function resourceFormRoutes(deps: PageDeps, kit: ResourceKit): RouteHandlers {
    const signedIn = { signedIn: true };
    const { answered, loaded, tabOf, tabPage } = kit;

    return {
        'dashboard.resource.collaborators.remove': {
            validate: { params, payload: formSchema({ email: text(254) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'collaborators');
                const { email } = p.request.payload as { email: string };
                const answer = await p.api.call('DELETE', `${resource.base}/collaborators/${encodeURIComponent(email)}`);
                return answered(p, resource, tab, answer, [204], `${email} is no longer a collaborator.`);
            }, signedIn)
        },
        'dashboard.resource.processes.patch': {
            validate: { params: processParams, payload: formSchema({ instances: text(8) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'processes');
                const raw = (p.request.payload as { instances: string }).instances;
                const instances = /^\d{1,4}$/.test(raw) ? Number(raw) : raw;
                const answer = await p.api.call<{ name: string }>('PATCH', `${resource.base}/worker-processes/${encodeURIComponent(p.request.params.workerId as string)}`, { instances });
                return answered(p, resource, tab, answer, [200], `The worker process ${answer.body?.name ?? ''} runs ${instances} instance(s) from the next deployment.`);
            }, signedIn)
        },
        'dashboard.resource.cronJobs.action': {
            validate: { params: cronJobParams, payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'cron-jobs');
                const action = CRON_JOB_ACTIONS[p.request.params.action as keyof typeof CRON_JOB_ACTIONS];
                const answer = await p.api.call(action.method, `${resource.base}/cron-jobs/${encodeURIComponent(p.request.params.jobId as string)}${action.suffix}`, action.body);
                return answered(p, resource, tab, answer, [200, 201, 202], action.done);
            }, signedIn)
        },
        'dashboard.resource.upload': {
            validate: { params },
            multipart: UPLOAD_FORM,
            handler: page(deps, async (p) => {
                // The form token and the session are checked before a byte of the archive is read; an archive that
                // is not sent on is discarded.
                const form = await readForm(p.request.payload as Readable, p.request.raw.req.headers, UPLOAD_FORM);
                let sent = false;
                try {
                    checkFormToken(p.request, form.text.csrf);
                    if (!p.session.signedIn) {
                        return p.toSignIn();
                    }

                    const resource = await loaded(p);
                    if (resource.kind.segment !== 'sites' || !p.request.server.lookup('sites.upload')) {
                        throw Boom.notFound('There is no such action.');
                    }

                    if (!form.file?.filename) {
                        return tabPage(p, resource, 'deployments', { error: 'Choose a .tar.gz or .zip archive of the site\'s files to upload.' }, 400);
                    }

                    const boundary = `hostless-${Crypto.randomBytes(12).toString('hex')}`;
                    sent = true;
                    const answer = await p.api.upload(`${resource.base}/upload`, `multipart/form-data; boundary=${boundary}`, Readable.from(singleFileBody(boundary, 'archive', form.file)));
                    return answered(p, resource, 'deployments', answer, [201, 202], `${form.file.filename} is uploaded: its deployment is queued.`);
                }
                finally {
                    if (!sent) {
                        form.abandon();
                    }
                }
            })
        },
        'dashboard.resource.firewall.add': {
            validate: { params, payload: formSchema({ protocol: text(8), ports: text(16), source: text(64), description: text(200) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'firewall');
                const form = p.request.payload as Record<string, string>;
                const rule: FirewallRule = { protocol: form.protocol, source: form.source, ...(form.ports ? { ports: form.ports } : {}), ...(form.description ? { description: form.description } : {}) };
                const { rules } = required(await p.api.call<Firewall>('GET', `${resource.base}/firewall`));
                const answer = await p.api.call('PUT', `${resource.base}/firewall`, { rules: [...rules.map(kept), rule] });
                return answered(p, resource, tab, answer, [200], `The rule ${ruleText(rule)} is added.`, { ruleForm: form });
            }, signedIn)
        },
        'dashboard.resource.firewall.remove': {
            validate: { params, payload: formSchema({ protocol: text(8), ports: text(16), source: text(64) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'firewall');
                const target = p.request.payload as FirewallRule;
                const { rules } = required(await p.api.call<Firewall>('GET', `${resource.base}/firewall`));
                const index = rules.findIndex((rule) => sameRule(rule, target));
                if (index === -1) {
                    return tabPage(p, resource, tab, { error: `There is no rule ${ruleText(target)} any more: the rules changed meanwhile.` }, 409);
                }

                const answer = await p.api.call('PUT', `${resource.base}/firewall`, { rules: rules.filter((_, i) => i !== index).map(kept) });
                return answered(p, resource, tab, answer, [200], `The rule ${ruleText(target)} is removed.`);
            }, signedIn)
        },
        'dashboard.resource.resize': {
            validate: { params, payload: formSchema({ size: text(64), diskGiB: text(8) }) },
            handler: page(deps, async (p) => {
                const resource = await loaded(p);
                const tab = tabOf(resource, 'size');
                const { size, diskGiB } = p.request.payload as { size: string; diskGiB: string };
                const body = { ...(size ? { size } : {}), ...(diskGiB ? { diskGiB: /^\d{1,6}$/.test(diskGiB) ? Number(diskGiB) : diskGiB } : {}) };
                const answer = await p.api.call('PUT', `${resource.base}/resources`, body);
                return answered(p, resource, tab, answer, [200], 'The size and disk are changed; they apply when the machine starts.');
            }, signedIn)
        },
    };
}
