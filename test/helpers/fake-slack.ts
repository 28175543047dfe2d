import { fakeService, type FakeService } from './fake-service';

// Slack's incoming webhooks on 127.0.0.1: each POST to /services/... is recorded and answered with the next of the
// answers a test queued (Slack's own: 200 `ok`, 404 `no_service`, 500 ...), or 200 `ok` when none is queued.
export interface FakeSlack extends FakeService {
    webhook: string;                                            // a webhook URL whose path is its secret
    secret: string;
    answers: Array<{ status: number; body: string }>;
    received: Array<{ path: string; body: { text?: string; channel?: string; blocks?: unknown[] } }>;
}

export async function fakeSlack(): Promise<FakeSlack> {
    const answers: FakeSlack['answers'] = [];
    const received: FakeSlack['received'] = [];
    const service = await fakeService([
        {
            method: 'POST', path: '/services/{path*}', handler: (request, h) => {
                received.push({ path: request.path, body: request.payload as FakeSlack['received'][number]['body'] });
                const answer = answers.shift() ?? { status: 200, body: 'ok' };
                return h.response(answer.body).code(answer.status).type('text/html');
            }
        }
    ]);
    const secret = `S3cr3t${Math.random().toString(36).slice(2, 14)}`;
    return Object.assign(service, { webhook: `${service.url}/services/T0001/B0001/${secret}`, secret, answers, received });
}
