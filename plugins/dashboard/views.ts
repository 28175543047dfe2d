import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';
import Handlebars from 'handlebars';

// Server-rendered views: handlebars through @hapi/vision, one layout, partials for what every page repeats.
// Templates escape everything they print; the one exception is a docs page's HTML, which markdown-it produced with
// raw HTML turned off.
export const VIEWS_DIR = Path.join(__dirname, 'views');

export function engine(): typeof Handlebars {
    const handlebars = Handlebars.create();
    handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
    handlebars.registerHelper('formatTime', (iso: unknown) => typeof iso === 'string' ? formatTime(iso) : '');
    handlebars.registerHelper('startsWith', (text: unknown, prefix: unknown) => typeof text === 'string' && typeof prefix === 'string' && text.startsWith(prefix));
    return handlebars;
}

/** `2026-11-21 10:00 UTC`: unambiguous, the same for every visitor; the ISO value goes in `<time datetime>`. */
export function formatTime(iso: string): string {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function configureViews(server: Server): void {
    server.views({
        engines: { hbs: engine() },
        path: VIEWS_DIR,
        layout: true,
        layoutPath: Path.join(VIEWS_DIR, 'layouts'),
        partialsPath: Path.join(VIEWS_DIR, 'partials'),
        isCached: true
    });
}
