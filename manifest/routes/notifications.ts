import type { RouteTable } from '../../lib/route-table';

// The signed-in user's choice of notification categories: session only, like the rest of /v1/users/me.
export const notificationsTable: RouteTable = {
    family: 'notifications',
    rows: [
        {
            id: 'notificationPreferences.get', method: 'GET', path: '/v1/users/me/notification-preferences', auth: 'session',
            description: 'The notification categories, each on or off for you; security messages are always on.',
            example: {}
        },
        {
            id: 'notificationPreferences.patch', method: 'PATCH', path: '/v1/users/me/notification-preferences', auth: 'session',
            description: 'Switch categories on or off (`{"projects": false}`); switching security messages off is refused.',
            example: { payload: { projects: false } }
        }
    ]
};
