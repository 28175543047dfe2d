import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { createApp, deploymentSettled } from '../../helpers/apps';
import type { FakeGitStore } from '../../helpers/fake-git-store';
import { connectThroughFlow, gitHostFakes, type GitHostFakes, type HostName } from '../../helpers/git-hosts';
import { testServer, type TestServer } from '../../helpers/server';

// The repository features of apps (review apps of pull requests, the service-file commit) with each host beyond
// GitHub (test/plugins/apps/repository.ts runs them against GitHub), through the connection the flow made. They
// are lib/ features every runtime kind gets: the kind names its repository, lib/git does the rest.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const CASES: Array<{ title: string; provider: HostName; edition: 'cloud' | 'datacenter'; repo: string; store: (fakes: GitHostFakes) => FakeGitStore; setup(fakes: GitHostFakes): void }> = [
    { title: 'GitLab', provider: 'gitlab', edition: 'cloud', repo: 'acme/web/shop', store: (fakes) => fakes.gitlab.store, setup: () => { } },
    { title: 'Bitbucket Cloud', provider: 'bitbucket', edition: 'cloud', repo: 'acme/shop', store: (fakes) => fakes.bitbucket.store, setup: (fakes) => void (fakes.bitbucket as { workspaces: string[] }).workspaces.push('acme') },
    { title: 'Bitbucket Data Center', provider: 'bitbucket', edition: 'datacenter', repo: 'ACME/shop', store: (fakes) => fakes.bitbucket.store, setup: (fakes) => void (fakes.bitbucket as { projects: string[] }).projects.push('ACME') }
];

for (const host of CASES) {
    describe(`app repository features with ${host.title}`, () => {

        let fakes: GitHostFakes;
        let instance: TestServer;
        let owner: TestUser;
        let app: { name: string };
        const call = caller(() => instance.server);

        before(async () => {
            fakes = await gitHostFakes({ bitbucket: host.edition });
            host.setup(fakes);
            const store = host.store(fakes);
            store.addRepo(host.repo, { files: { 'package.json': '{}' } });
            store.addCommit(host.repo, 'feature/cart', 'Cart drawer');
            store.addPull(host.repo, { title: 'Cart drawer', head: 'feature/cart' });
            instance = await testServer(fakes.config);
            instance.server.plugins['hostless-jobs'].queue.start();
            owner = await register(instance.server, 'repo-owner');
            expect((await connectThroughFlow(instance.server, owner, host.provider, fakes[host.provider])).completed.statusCode).to.equal(201);
            app = await createApp(instance.server, owner, { repository: { provider: host.provider, repo: host.repo, branch: 'main' } });
        });

        after(async () => {
            await instance?.stop();
            await fakes?.stop();
        });

        it('lists open pull requests and deploys a review app of one', async () => {
            const pulls = await call('GET', `/v1/apps/${app.name}/review-apps/pull-requests`, owner.session);
            expect(pulls.statusCode, pulls.payload).to.equal(200);
            expect(pulls.result.map((pull: { number: number; title: string; headBranch: string }) => [pull.number, pull.title, pull.headBranch])).to.equal([[1, 'Cart drawer', 'feature/cart']]);

            const triggered = await call('POST', `/v1/apps/${app.name}/review-apps/trigger`, owner.session, { pullRequest: 1 });
            expect(triggered.statusCode, triggered.payload).to.equal(201);
            const deployment = await deploymentSettled(instance.server, owner, app.name, triggered.result.deploymentId);
            expect(deployment).to.include({ status: 'live', trigger: 'review', branch: 'feature/cart' });
        });

        it('commits the service file to the repository\'s branch', async () => {
            const res = await call('POST', `/v1/apps/${app.name}/hostless-file/commit`, owner.session, { message: 'Add the service file' });
            expect(res.statusCode, res.payload).to.equal(200);
            const store = host.store(fakes);
            expect(res.result.committedSha).to.equal(store.head(host.repo, 'main')!);
            expect(store.file(host.repo, 'main', 'hostless.yaml')).to.include(`name: ${app.name}`);
            expect(store.commits.get(store.head(host.repo, 'main')!)!.message).to.equal('Add the service file');
        });

        it('refuses a repository name the host cannot have', async () => {
            const nested = host.provider === 'gitlab' ? 'a/b/c/d' : 'a/b/c';
            const res = await call('PATCH', `/v1/apps/${app.name}`, owner.session, { repository: { provider: host.provider, repo: nested, branch: 'main' } });
            expect(res.statusCode).to.equal(host.provider === 'gitlab' ? 200 : 400);
        });
    });
}
