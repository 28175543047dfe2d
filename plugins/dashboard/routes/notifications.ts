import type { RouteHandlers } from '../../../lib/route-table';
import { apiError, required } from '../api';
import { asList, formSchema, many } from '../forms';
import { page, type Page, type PageDeps } from '../page';

// The user's notification choices, through GET and PATCH /v1/users/me/notification-preferences: a checkbox per
// category that can be switched off; security messages are shown as always on.

interface CategoryPreference {
    category: string;
    description: string;
    enabled: boolean;
    required: boolean;
}

const PREFERENCES = '/v1/users/me/notification-preferences';
const PAGE = '/dashboard/account/notifications';

const view = (p: Page, categories: CategoryPreference[], extra: Record<string, unknown> = {}, status = 200) =>
    p.view('notifications', { title: 'Notifications', categories: categories.map((entry) => ({ ...entry, id: `category-${entry.category}` })), ...extra }, status);

export function notificationRoutes(deps: PageDeps): RouteHandlers {
    const signedIn = { signedIn: true };
    const current = async (p: Page) => required(await p.api.call<{ categories: CategoryPreference[] }>('GET', PREFERENCES)).categories;

    return {
        'dashboard.notifications': {
            handler: page(deps, async (p) => view(p, await current(p)), signedIn)
        },
        'dashboard.notifications.save': {
            validate: { payload: formSchema({ categories: many() }) },
            handler: page(deps, async (p) => {
                const chosen = asList((p.request.payload as { categories?: string | string[] }).categories);
                const categories = await current(p);
                const changes = Object.fromEntries(categories.filter((entry) => !entry.required).map((entry) => [entry.category, chosen.includes(entry.category)]));
                const answer = await p.api.call('PATCH', PREFERENCES, changes);
                if (answer.status === 200) {
                    return p.redirect(PAGE, 'Your notification choices are saved.');
                }

                const error = apiError(answer);
                return view(p, categories, { error: error.message }, error.status);
            }, signedIn)
        }
    };
}
