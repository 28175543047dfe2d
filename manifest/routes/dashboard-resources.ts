import type { RouteRow } from '../../lib/route-table';
import { form, page, signedOut, upload } from './dashboard-rows';

// A page per resource (`{kind}`: apps, sites, workers, cron-jobs, databases, virtual-machines; `{name}`: its name, or
// a virtual machine's id) with its tabs, deployments, live log tail and the forms of its actions, its collaborators',
// its worker processes' and its app cron jobs'.
const one = { kind: 'apps', name: 'shop' };
const deployment = { ...one, deploymentId: 'dep_0000000000000000' };
const vm = { kind: 'virtual-machines', name: 'vm_0000000000000000' };

export const dashboardResourceRows: RouteRow[] = [
    page('dashboard.resource', '/dashboard/{kind}/{name}', 'A resource: status, edge URL, live deployment, details and the actions the caller\'s role allows.', { ...signedOut, params: one }),
    page('dashboard.resource.tab', '/dashboard/{kind}/{name}/{tab}', 'A tab of a resource: deployments, logs, metrics, environment, domains, cron-jobs, runs, processes, collaborators, linked-apps, firewall or size.', { ...signedOut, params: { ...one, tab: 'logs' } }),
    page('dashboard.resource.deployment', '/dashboard/{kind}/{name}/deployments/{deploymentId}', 'One deployment: its timings, build and release logs, and configuration snapshot.', { ...signedOut, params: deployment }),
    form('dashboard.resource.rerun', '/dashboard/{kind}/{name}/deployments/{deploymentId}/rerun', 'Deploy a deployment\'s configuration again.', deployment),
    page('dashboard.resource.logStream', '/dashboard/{kind}/{name}/logs/stream', 'The live tail of a resource\'s logs as server-sent events (at most 5 minutes a stream, 3 streams a session).', { ...signedOut, params: one }),
    form('dashboard.resource.action', '/dashboard/{kind}/{name}/actions/{action}', 'An action on a resource: deploy, restart, scale, run, pause, resume, start or stop.', { ...one, action: 'deploy' }),
    page('dashboard.resource.deleteConfirm', '/dashboard/{kind}/{name}/delete', 'Asks to confirm a deletion by typing the resource\'s name.', { ...signedOut, params: one }),
    form('dashboard.resource.delete', '/dashboard/{kind}/{name}/delete', 'Delete a resource, once its name is typed.', one),
    form('dashboard.resource.env.set', '/dashboard/{kind}/{name}/environment', 'Set an environment variable.', one),
    form('dashboard.resource.env.remove', '/dashboard/{kind}/{name}/environment/remove', 'Remove an environment variable.', one),
    form('dashboard.resource.domains.add', '/dashboard/{kind}/{name}/domains', 'Add a custom domain.', one),
    form('dashboard.resource.domains.remove', '/dashboard/{kind}/{name}/domains/remove', 'Remove a custom domain.', one),
    form('dashboard.resource.collaborators.invite', '/dashboard/{kind}/{name}/collaborators', 'Invite a collaborator, or change their permissions.', one),
    upload('dashboard.resource.upload', '/dashboard/{kind}/{name}/upload', 'Upload a new version of a site (multipart: the form token, then a tar.gz or zip `archive`) and deploy it.', { kind: 'sites', name: 'docs' }),
    form('dashboard.resource.firewall.add', '/dashboard/{kind}/{name}/firewall', 'Add an inbound rule to a virtual machine\'s firewall.', vm),
    form('dashboard.resource.firewall.remove', '/dashboard/{kind}/{name}/firewall/remove', 'Remove an inbound rule from a virtual machine\'s firewall.', vm),
    form('dashboard.resource.resize', '/dashboard/{kind}/{name}/size', 'Change a stopped virtual machine\'s size and disk.', vm),
    form('dashboard.resource.collaborators.remove', '/dashboard/{kind}/{name}/collaborators/remove', 'Remove a collaborator, or withdraw their invitation.', one),
    form('dashboard.resource.processes.patch', '/dashboard/{kind}/{name}/processes/{workerId}', 'Change how many instances of an app\'s worker process run.', { ...one, workerId: 'prc_0000000000000000' }),
    form('dashboard.resource.cronJobs.action', '/dashboard/{kind}/{name}/cron-jobs/{jobId}/{action}', 'Run one of an app\'s cron jobs now, pause it or resume it.', { ...one, jobId: 'crn_0000000000000000', action: 'run' })
];
