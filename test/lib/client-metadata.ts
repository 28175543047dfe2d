import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { ClientMetadataDocuments, ClientMetadataError, MAX_CACHE_MS } from '../../lib/oauth/client-metadata';
import { fakeService, type FakeService } from '../helpers/fake-service';

// Client ID Metadata Documents fetched through the outbound client from a fake client host on 127.0.0.1: the URL
// rules, the document rules, no redirects, 5 KiB, a time limit, and a cache of at most 24 hours that never keeps errors.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('Client ID Metadata Documents', () => {

    let host: FakeService;
    let documents: ClientMetadataDocuments;
    const served: Record<string, { status?: number; type?: string; body: unknown; headers?: Record<string, string>; delayMs?: number }> = {};

    before(async () => {
        host = await fakeService([{
            method: 'GET', path: '/{name}',
            handler: async (request, h) => {
                const entry = served[request.params.name as string];
                if (!entry) {
                    return h.response({ error: 'nothing here' }).code(404);
                }

                if (entry.delayMs) {
                    await new Promise((resolve) => setTimeout(resolve, entry.delayMs));
                }

                const response = h.response(typeof entry.body === 'string' ? entry.body : JSON.stringify(entry.body)).code(entry.status ?? 200).type(entry.type ?? 'application/json');
                for (const [name, value] of Object.entries(entry.headers ?? {})) {
                    response.header(name, value);
                }

                return response;
            }
        }]);
        documents = new ClientMetadataDocuments({ allowlist: ['127.0.0.1'], allowHttpLoopback: true, timeoutMs: 300 });
    });

    after(async () => {
        await host?.stop();
    });

    const url = (name: string) => `${host.url}/${name}`;
    const serve = (name: string, document: Record<string, unknown> = {}, extra: Omit<typeof served[string], 'body'> = {}) => {
        served[name] = { body: { client_id: url(name), client_name: 'Doc client', redirect_uris: ['http://127.0.0.1:9999/callback'], ...document }, ...extra };
        return url(name);
    };

    const fetches = (name: string) => host.requests.filter((request) => request.path === `/${name}`).length;

    const refused = async (clientId: string, message: RegExp, options = documents) => {
        const err = await expect(options.resolve(clientId)).to.reject(ClientMetadataError);
        expect(err.message).to.match(message);
    };

    it('resolves a document that names itself', async () => {
        const id = serve('good');
        expect(await documents.resolve(id)).to.equal({ clientId: id, name: 'Doc client', host: new URL(host.url).host, redirectUris: ['http://127.0.0.1:9999/callback'] });
    });

    it('refuses a document that names another client_id, or breaks the rules', async () => {
        await refused(serve('other-id', { client_id: 'https://elsewhere.example/doc' }), /another client_id/);
        await refused(serve('secret', { client_secret: 'x' }), /not valid/);
        await refused(serve('confidential', { token_endpoint_auth_method: 'client_secret_basic' }), /not valid/);
        await refused(serve('no-redirects', { redirect_uris: [] }), /not valid/);
        await refused(serve('bad-redirect', { redirect_uris: ['http://example.com/cb'] }), /redirect URI that must use https/);
        await refused(serve('implicit', { response_types: ['token'] }), /not valid/);
        await refused(serve('bidi-name', { client_name: 'Hostless\u202E ppA lanoiciffO' }), /^.*is not valid: "client_name" must not contain control or invisible formatting characters$/);
    });

    it('refuses what is not a JSON document of at most 5 KiB, answered directly', async () => {
        served.html = { body: '<html></html>', type: 'text/html' };
        await refused(url('html'), /not served as JSON/);
        served.broken = { body: '{"client_id": ' };
        await refused(url('broken'), /not valid JSON/);
        await refused(serve('large', { padding: 'x'.repeat(6000) }), /larger than 5120 bytes/);
        served.moved = { status: 302, body: '', headers: { location: serve('moved-to') } };
        await refused(url('moved'), /redirect, which is not followed/);
        expect(fetches('moved-to'), 'the redirect is not followed').to.equal(0);
        await refused(url('missing'), /status 404/);
        await refused(serve('slow', {}, { delayMs: 1000 }), /did not arrive in time/);
    });

    it('refuses client_id URLs outside the rules without fetching them', async () => {
        await refused('http://example.com/client.json', /must use https/);
        await refused(`${host.url}/`, /with a path/);
        await refused(`${host.url}/a/../good`, /canonical form/);
        await refused(`${host.url}/good#x`, /canonical form|fragment/);
        await refused(`http://user@127.0.0.1:${new URL(host.url).port}/good`, /user info/);
        const production = new ClientMetadataDocuments({ allowlist: ['127.0.0.1'], allowHttpLoopback: false });
        await refused(serve('prod'), /must use https/, production);
        const strict = new ClientMetadataDocuments({ allowlist: [], allowHttpLoopback: true });
        await refused(serve('private'), /may not fetch/, strict);
        expect(fetches('private')).to.equal(0);
    });

    it('caches a document as its Cache-Control says, for at most 24 hours, and never an error', async () => {
        const id = serve('cached', {}, { headers: { 'cache-control': 'public, max-age=999999' } });
        await documents.resolve(id);
        await documents.resolve(id);
        expect(fetches('cached')).to.equal(1);

        const now = Date.now;
        Date.now = () => now() + MAX_CACHE_MS + 1000;
        try {
            await documents.resolve(id);
        }
        finally {
            Date.now = now;
        }

        expect(fetches('cached'), 'fetched again after 24 hours').to.equal(2);

        const uncached = serve('uncached', {}, { headers: { 'cache-control': 'no-store' } });
        await documents.resolve(uncached);
        await documents.resolve(uncached);
        expect(fetches('uncached')).to.equal(2);

        await refused(url('later'), /status 404/);
        serve('later');
        await documents.resolve(url('later'));
        expect(fetches('later')).to.equal(2);
    });
});
