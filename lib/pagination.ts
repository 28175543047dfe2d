import * as Boom from '@hapi/boom';
import Joi from 'joi';

// Keyset pagination, newest first then id: the cost grows with the page, not with the table.
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export const listQuery = {
    limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
    cursor: Joi.string().max(200)
};

interface Position {
    createdAt: string;
    id: string;
}

export function encodeCursor(position: Position): string {
    return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
    try {
        const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
        if (typeof createdAt === 'string' && typeof id === 'string') {
            return { createdAt, id };
        }
    }
    catch { }

    throw Boom.badRequest('"cursor" is not a valid cursor');
}

interface Pageable<Q> {
    where(callback: (builder: any) => void): Q;
    orderBy(column: string, direction: 'asc' | 'desc'): Q;
    limit(count: number): Q;
}

/** Narrows a knex or objection query to one page after `cursor`, fetching one row more to know whether more remain. */
export function pageQuery<Q extends Pageable<Q>>(query: Q, page: { limit: number; cursor?: string | undefined }, columns = { createdAt: 'created_at', id: 'id' }): Q {
    let narrowed = query;
    if (page.cursor) {
        const after = decodeCursor(page.cursor);
        narrowed = narrowed.where((q) => {
            q.where(columns.createdAt, '<', after.createdAt)
                .orWhere((q2: any) => q2.where(columns.createdAt, '=', after.createdAt).andWhere(columns.id, '<', after.id));
        });
    }

    return narrowed.orderBy(columns.createdAt, 'desc').orderBy(columns.id, 'desc').limit(page.limit + 1);
}

export interface Page<T> {
    items: T[];
    next: string | null;
}

export function toPage<T extends Position>(rows: T[], limit: number): Page<T> {
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items, next: rows.length > limit && last ? encodeCursor(last) : null };
}
