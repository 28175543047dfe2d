import { UniqueViolationError } from 'objection';

/** A unique-constraint failure, whichever database raised it and whether or not objection wrapped it. */
export function isUniqueViolation(err: unknown): boolean {
    if (err instanceof UniqueViolationError) {
        return true;
    }

    const code = (err as { code?: string } | null)?.code;
    return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
