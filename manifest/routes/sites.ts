import Joi from 'joi';

import { sharedRows as shared } from '../../lib/resources/rows';
import { runtimeKind } from '../../lib/resources/spec';
import { keyRoute as r, type ExamplePart, type RouteTable } from '../../lib/route-table';

export const SITES = runtimeKind({
    kind: 'site', family: 'sites', path: '/sites', param: 'siteName', table: 'sites', idPrefix: 'sit', noun: 'site', plural: 'sites',
    scopes: { read: 'sites:read', write: 'sites:write', delete: 'sites:delete' }, edge: true, fixture: 'site'
});

/** A site's own body fields beside the shared ones (REST and the MCP tools read the same schema). */
export const SITE_FIELDS = {
    spa: Joi.boolean().description('Serve /index.html for paths without a file extension that match no file (a single-page app), instead of the 404 page.')
};

const site = { siteName: '{site}' };
/** A tar.gz holding one index.html: what the upload examples send. */
export const EXAMPLE_ARCHIVE = 'H4sIANIBBWsC/+3SMQ7CMAyF4cycIlyAJqKii9W510BtUCulBDVBgtuTkgWxAwP/tzz7LV48nQd3241p9upjTHao62dm72nsy1z6ptlbpY36gmtMxyWfVP9JtkPo0/3i9PoDraQpedd2zvsgVVlktKXQpyXMugsxtzFKlfuNAgAAAAAAAAAAAAAAAAD8xAPhwE3fACgAAA==';
const archive: ExamplePart = { name: 'archive', filename: 'site.tar.gz', contentType: 'application/gzip', base64: EXAMPLE_ARCHIVE };
const document = { title: 'Example', pages: [{ path: '/', title: 'Home', blocks: [{ type: 'heading', text: 'Hello' }] }] };

// Static sites: the shared runtime rows (settings, environment, domains, scaling, deployments, logs, metrics)
// plus what only sites have: uploads, the visual builder, review sites, what the edge measures, and build
// statistics per deployment. A site fixture is made from the visual builder, so it has files to redeploy; a site
// made by `POST /sites` alone has none until an upload or a publish.
export const sitesTable: RouteTable = {
    family: 'sites',
    kinds: [
        ...SITES.kinds,
        { kind: 'site-build', param: 'siteDeploymentId', table: 'deployments', column: 'id', projectColumn: 'project_id', parent: { kind: 'site', column: 'resource_id' }, label: 'Deployment' }
    ],
    fixtures: {
        ...SITES.fixtures,
        site: { route: 'sites.fromVisualBuilder', payload: { name: '{unique}', projectId: '{project}' }, value: 'name' },
        sitePair: { route: 'sites.fromVisualBuilder', payload: { name: '{unique}', projectId: '{project}', instances: 2 }, value: 'name' }
    },
    rows: [
        ...shared.crud(SITES, { patchExample: { spa: true, environmentVariables: { PUBLIC_NAME: 'example' } }, deleteWhat: 'its deployments, stored files, domains, visual-builder project and metrics' }),
        ...shared.envVars(SITES),
        ...shared.domains(SITES),
        ...shared.scale(SITES),
        ...shared.restart(SITES),
        ...shared.search(SITES),
        ...shared.commits(SITES),
        ...shared.deployments(SITES),
        ...shared.logs(SITES),
        ...shared.metrics(SITES, ['request-count', 'response-duration', 'bandwidth', 'cpu-usage', 'memory-usage']),
        ...shared.edgeMetrics(SITES),
        r('sites.deployments.buildStats', 'GET', '/sites/{siteName}/deployments/{siteDeploymentId}/metrics/build-stats', 'sites:read', 'Build statistics of one site deployment: its files, bytes, what the store did not hold yet, and its phases.', {
            example: { setup: ['site', 'siteDeployment'], params: { ...site, siteDeploymentId: '{siteDeployment}' } }
        }),
        r('sites.fromUpload', 'POST', '/sites/from-upload', 'sites:write', 'Create a site from an archive (multipart: a `metadata` JSON part, then an `archive` part, tar.gz or zip) and deploy it.', {
            body: 'multipart', policy: { project: 'body', create: true },
            example: { form: [{ name: 'metadata', json: { name: '{unique}', projectId: '{project}' } }, archive], status: 201 }
        }),
        r('sites.fromVisualBuilder', 'POST', '/sites/from-visual-builder', 'sites:write', 'Create a site from a visual-builder document (a starter page when none is given) and publish it.', {
            policy: { project: 'body', create: true }, example: { payload: { name: '{unique}', projectId: '{project}', document }, status: 201 }
        }),
        r('sites.upload', 'POST', '/sites/{siteName}/upload', 'sites:write', 'Deploy a new archive (multipart: one `archive` part, tar.gz or zip).', {
            body: 'multipart', example: { setup: ['site'], params: site, form: [archive], status: 201 }
        }),
        r('sites.reviewSites.list', 'GET', '/sites/{siteName}/review-sites', 'sites:read', 'Review sites of open pull requests.', { example: { setup: ['site'], params: site } }),
        r('sites.reviewSites.pullRequests', 'GET', '/sites/{siteName}/review-sites/pull-requests', 'sites:read', 'Open pull requests of the site\'s repository.', { example: { setup: ['site'], params: site, status: 409 } }),
        r('sites.reviewSites.trigger', 'POST', '/sites/{siteName}/review-sites/trigger', 'sites:write', 'Create or redeploy the review site of an open pull request.', {
            example: { setup: ['site'], params: site, payload: { pullRequest: 1 }, status: 409 }
        }),
        r('sites.builder.project.get', 'GET', '/sites/{siteName}/visual-builder/project', 'sites:read', 'The visual-builder document of a site, with its version.', { example: { setup: ['site'], params: site } }),
        r('sites.builder.project.put', 'PUT', '/sites/{siteName}/visual-builder/project', 'sites:write', 'Save the visual-builder document; `version` must be the one read (409 when another save came first).', {
            example: { setup: ['site'], params: site, payload: { version: 1, document } }
        }),
        r('sites.builder.publish', 'POST', '/sites/{siteName}/visual-builder/publish', 'sites:write', 'Render the visual-builder document to static HTML and deploy it.', {
            example: { setup: ['site'], params: site, status: 201 }
        }),
        r('sites.builder.assets.list', 'GET', '/sites/{siteName}/visual-builder/assets', 'sites:read', 'Assets uploaded to the visual builder.', { example: { setup: ['site'], params: site } }),
        r('sites.builder.assets.upload', 'POST', '/sites/{siteName}/visual-builder/assets', 'sites:write', 'Upload a visual-builder asset (multipart: one `file` part, at most 25 MiB).', {
            body: 'multipart', example: { setup: ['site'], params: site, form: [{ name: 'file', filename: 'logo.txt', contentType: 'text/plain', base64: 'bG9nbw==' }], status: 201 }
        })
    ]
};
