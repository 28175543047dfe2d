import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const list = { policy: { project: 'query' as const } };
const create = { policy: { project: 'body' as const, create: true } };

// Static sites: uploads, the visual builder, domains, review sites, deployments, logs and edge metrics.
export const sitesTable: RouteTable = {
    family: 'sites',
    rows: [
        r('sites.list', 'GET', '/sites', 'sites:read', 'Sites the caller can reach; `?projectId=` narrows to one project.', list),
        r('sites.get', 'GET', '/sites/{siteName}', 'sites:read', 'One site.'),
        r('sites.search', 'GET', '/sites/{siteName}/search', 'sites:read', 'Search a site\'s deployments, logs and environment variable names.'),
        r('sites.envVars.get', 'GET', '/sites/{siteName}/environment-variables', 'sites:read', 'A site\'s build environment variables.'),
        r('sites.domains.list', 'GET', '/sites/{siteName}/custom-domains', 'sites:read', 'Custom domains with their verification status.'),
        r('sites.commits.list', 'GET', '/sites/{siteName}/commits', 'sites:read', 'Recent commits of the site\'s repository branch.'),
        r('sites.reviewSites.list', 'GET', '/sites/{siteName}/review-sites', 'sites:read', 'Review sites of open pull requests.'),
        r('sites.reviewSites.pullRequests', 'GET', '/sites/{siteName}/review-sites/pull-requests', 'sites:read', 'Open pull requests of the site\'s repository.'),
        r('sites.builder.project.get', 'GET', '/sites/{siteName}/visual-builder/project', 'sites:read', 'The visual-builder project of a site.'),
        r('sites.builder.assets.list', 'GET', '/sites/{siteName}/visual-builder/assets', 'sites:read', 'Assets uploaded to the visual builder.'),
        r('sites.metrics.requestCount', 'GET', '/sites/{siteName}/metrics/request-count', 'sites:read', 'Requests over time, measured at the edge.'),
        r('sites.metrics.requestCountTotal', 'GET', '/sites/{siteName}/metrics/request-count/total', 'sites:read', 'Total requests in a period.'),
        r('sites.metrics.responseDuration', 'GET', '/sites/{siteName}/metrics/response-duration', 'sites:read', 'Response duration over time.'),
        r('sites.metrics.bandwidth', 'GET', '/sites/{siteName}/metrics/bandwidth', 'sites:read', 'Bytes served over time.'),
        r('sites.metrics.uniqueVisitors', 'GET', '/sites/{siteName}/metrics/unique-visitors', 'sites:read', 'Unique visitors over time.'),
        r('sites.metrics.topPaths', 'GET', '/sites/{siteName}/metrics/top-paths', 'sites:read', 'Most requested paths.'),
        r('sites.metrics.cpuUsage', 'GET', '/sites/{siteName}/metrics/cpu-usage', 'sites:read', 'CPU usage over time.'),
        r('sites.metrics.memoryUsage', 'GET', '/sites/{siteName}/metrics/memory-usage', 'sites:read', 'Memory usage over time.'),
        r('sites.deployments.buildStats', 'GET', '/sites/{siteName}/deployments/{siteDeploymentId}/metrics/build-stats', 'sites:read', 'Build statistics of one site deployment.'),
        r('sites.create', 'POST', '/sites', 'sites:write', 'Create a site from a repository.', create),
        r('sites.fromUpload', 'POST', '/sites/from-upload', 'sites:write', 'Create a site from an uploaded archive (multipart).', { ...create, body: 'multipart' }),
        r('sites.fromVisualBuilder', 'POST', '/sites/from-visual-builder', 'sites:write', 'Create a site from a visual-builder project.', create),
        r('sites.patch', 'PATCH', '/sites/{siteName}', 'sites:write', 'Change a site\'s settings.'),
        r('sites.restart', 'POST', '/sites/{siteName}/restart', 'sites:write', 'Restart a site\'s serving instances.'),
        r('sites.upload', 'POST', '/sites/{siteName}/upload', 'sites:write', 'Upload a new archive and deploy it (multipart).', { body: 'multipart' }),
        r('sites.domains.add', 'POST', '/sites/{siteName}/custom-domains', 'sites:write', 'Add a custom domain.'),
        r('sites.scaleDown', 'POST', '/sites/{siteName}/scale/down', 'sites:write', 'Remove serving instances.'),
        r('sites.scaleUp', 'POST', '/sites/{siteName}/scale/up', 'sites:write', 'Add serving instances.'),
        r('sites.reviewSites.trigger', 'POST', '/sites/{siteName}/review-sites/trigger', 'sites:write', 'Create or redeploy the review site of a pull request.'),
        r('sites.builder.project.put', 'PUT', '/sites/{siteName}/visual-builder/project', 'sites:write', 'Save the visual-builder project.'),
        r('sites.builder.publish', 'POST', '/sites/{siteName}/visual-builder/publish', 'sites:write', 'Publish the visual-builder project as a deployment.'),
        r('sites.builder.assets.upload', 'POST', '/sites/{siteName}/visual-builder/assets', 'sites:write', 'Upload a visual-builder asset (multipart).', { body: 'multipart' }),
        r('sites.delete', 'DELETE', '/sites/{siteName}', 'sites:delete', 'Delete a site.'),
        r('sites.domains.remove', 'DELETE', '/sites/{siteName}/custom-domains', 'sites:delete', 'Remove a custom domain (`?domain=`).'),
        r('sites.deployments.list', 'GET', '/sites/{siteName}/deployments', 'deployments:read', 'Deployments of a site, newest first.'),
        r('sites.deployments.get', 'GET', '/sites/{siteName}/deployments/{deploymentId}', 'deployments:read', 'One site deployment.'),
        r('sites.deployments.create', 'POST', '/sites/{siteName}/deployments/new', 'deployments:write', 'Trigger a deployment (a JSON body; an empty object is accepted).'),
        r('sites.deployments.rerun', 'POST', '/sites/{siteName}/deployments/{deploymentId}/rerun', 'deployments:write', 'Deploy the same configuration again.'),
        r('sites.logs', 'GET', '/sites/{siteName}/logs', 'logs:read', 'Edge and runtime logs of a site.'),
        r('sites.deployments.logs', 'GET', '/sites/{siteName}/deployments/{deploymentId}/logs', 'logs:read', 'Build logs of a site deployment.')
    ]
};
