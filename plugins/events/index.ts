import type { NamedPlugin } from '@hapi/hapi';

import { PlatformEvents } from '../../lib/events';

// The platform's event hook (lib/events.ts), one per server: families emit through it in their transactions
// (`server.plugins['hostless-events'].events.emit(trx, {...})`), listeners such as the integrations subscribe to it.
export const eventsPlugin: NamedPlugin<Record<string, never>> = {
    name: 'hostless-events',
    register(server) {
        server.expose('events', new PlatformEvents());
    }
};
