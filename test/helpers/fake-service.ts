import * as Hapi from '@hapi/hapi';

// A fake outside service on 127.0.0.1 from a few route handlers, for testing real adapters against it. Every request
// is recorded (method, path with query, headers, body) so tests can assert what an adapter sent.
export interface RecordedRequest {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    payload: unknown;
}

export interface FakeService {
    url: string;
    requests: RecordedRequest[];
    server: Hapi.Server;
    stop(): Promise<void>;
}

export async function fakeService(routes: Hapi.ServerRoute[]): Promise<FakeService> {
    const server = Hapi.server({ host: '127.0.0.1', port: 0, debug: false });
    const requests: RecordedRequest[] = [];
    server.ext('onPreHandler', (request, h) => {
        requests.push({ method: request.method.toUpperCase(), path: request.url.pathname + request.url.search, headers: { ...request.headers } as RecordedRequest["headers"], payload: request.payload });
        return h.continue;
    });
    // A route may ask for more of its body (multipart forms); every body is parsed, and a bad one is not refused.
    server.route(routes.map((route) => {
        const own = (route.options as { payload?: object } | undefined)?.payload;
        return { ...route, options: { ...route.options, payload: route.method === 'GET' ? undefined : { parse: true, failAction: 'ignore', ...own } as never } };
    }));
    await server.start();
    return { url: server.info.uri, requests, server, stop: () => server.stop() };
}
