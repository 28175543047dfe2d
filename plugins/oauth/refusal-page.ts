import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

// What the authorization endpoint shows when it must not redirect (an unknown client or an unregistered redirect
// URI, RFC 6749 section 4.1.2.1): a plain page for the user, with nothing to run and nothing to frame.
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function refusalPage(h: ResponseToolkit, message: string): ResponseObject {
    const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Cannot connect this app · Hostless</title></head>
<body>
<main>
<h1>This app cannot be connected</h1>
<p>${escape(message)}</p>
<p>Nothing was shared. Go back to the app you came from and check its connection settings, or read <a href="/docs/oauth">Connecting AI apps</a>.</p>
</main>
</body>
</html>
`;
    return h.response(html).code(400).type('text/html; charset=utf-8')
        .header('content-security-policy', 'default-src \'none\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'')
        .header('cache-control', 'no-store');
}
