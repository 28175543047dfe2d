import * as Boom from '@hapi/boom';
import Joi from 'joi';

// Keyset pagination, newest first then id: the cost grows with the page, not with the table (lib/lists.ts runs
// the queries; this is the query vocabulary and the cursor format).
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
        const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
        if (typeof createdAt === 'string' && typeof id === 'string') {
            return { createdAt, id };
        }
    }
    catch { }

    throw Boom.badRequest('"cursor" is not a valid cursor');
}

export interface Page<T> {
    items: T[];
    next: string | null;
}
