import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

// The edge's own pages: what a tenant host answers when it has nothing to serve. Plain, without the platform's
// name or links, since the host is the tenant's.
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function notFoundPage(h: ResponseToolkit, message: string, status = 404): ResponseObject {
    const title = status === 404 ? 'Not found' : status === 405 ? 'Method not allowed' : 'Bad request';
    const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${status} ${title}</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:20vh auto;max-width:32rem;padding:0 1rem;color:#333}</style></head>` +
        `<body><h1>${status} ${title}</h1><p>${escape(message)}</p></body></html>\n`;
    return h.response(html).code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store');
}
