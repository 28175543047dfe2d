import type { Server } from '@hapi/hapi';

import type { Config } from '../../manifest/config';
import { caller, type TestUser } from './api';
import { fakeBitbucket, type FakeBitbucket } from './fake-bitbucket';
import { fakeBitbucketServer, type FakeBitbucketServer } from './fake-bitbucket-server';
import { fakeGitHub, type FakeGitHub } from './fake-github';
import { fakeGitLab, type FakeGitLab } from './fake-gitlab';
import type { FakeOAuthOptions } from './fake-oauth';

// A fake of every Git host on 127.0.0.1 (Bitbucket as Cloud or as Data Center), and the server settings that point
// the platform at them; and the connect flow as a browser and its user go through it.
export interface GitHostFakes {
    github: FakeGitHub;
    gitlab: FakeGitLab;
    bitbucket: FakeBitbucket | FakeBitbucketServer;
    config: Partial<Config>;
    stop(): Promise<void>;
}

export async function gitHostFakes(options: { bitbucket?: 'cloud' | 'datacenter'; oauth?: Partial<FakeOAuthOptions> } = {}): Promise<GitHostFakes> {
    const github = await fakeGitHub({ login: 'ada', ...(options.oauth ? { oauth: options.oauth } : {}) });
    const gitlab = await fakeGitLab({ login: 'ada', ...(options.oauth ? { oauth: options.oauth } : {}) });
    const datacenter = options.bitbucket === 'datacenter';
    const bitbucket = datacenter
        ? await fakeBitbucketServer({ login: 'ada', ...(options.oauth ? { oauth: options.oauth } : {}) })
        : await fakeBitbucket({ login: 'ada', ...(options.oauth ? { oauth: options.oauth } : {}) });
    return {
        github,
        gitlab,
        bitbucket,
        config: {
            github: { apiUrl: github.url, webUrl: github.url, clientId: github.oauth.clientId, clientSecret: github.oauth.clientSecret },
            gitlab: { url: gitlab.url, clientId: gitlab.oauth.clientId, clientSecret: gitlab.oauth.clientSecret },
            bitbucket: {
                edition: datacenter ? 'datacenter' : 'cloud', url: bitbucket.url, apiUrl: `${bitbucket.url}${datacenter ? '/rest/api/1.0' : '/2.0'}`,
                clientId: bitbucket.oauth.clientId, clientSecret: bitbucket.oauth.clientSecret
            },
            outbound: { allowlist: ['127.0.0.1'] }
        },
        stop: async () => {
            await Promise.all([github.stop(), gitlab.stop(), bitbucket.stop()]);
        }
    };
}

export type HostName = 'github' | 'gitlab' | 'bitbucket';

/** The connect flow: the API's start, the user approving at the host (which mints a code), the dashboard's callback. */
export async function connectThroughFlow(server: Server, user: TestUser, provider: HostName, host: { oauth: { approve(login: string): string } }, projectId = user.projectId) {
    const call = caller(() => server);
    const started = await call('GET', `/v1/${provider}/connect?projectId=${projectId}`, user.session);
    if (started.statusCode !== 200) {
        throw new Error(`connect failed: ${started.statusCode} ${started.payload}`);
    }

    const state = new URL(started.result.authorizeUrl as string).searchParams.get('state')!;
    const code = host.oauth.approve('ada');
    const completed = await call('POST', `/v1/${provider}/callback`, user.session, { code, state });
    return { started, state, code, completed };
}
