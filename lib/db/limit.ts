import Hoek from '@hapi/hoek';

// A LIMIT of a statement the prepared-statement reader runs many times (lib/db/fast-reader.ts). SQLite's planner reads
// the value bound to a `LIMIT ?` (sqlite3ExprIsInteger), and a statement whose plan read a bound value is prepared
// again every time that parameter is bound: a page of 50 over five merged arms spent 100 of its 240 us preparing
// itself again on each run. On SQLite the limit is therefore written into the text, one statement per limit (a
// route's limits are few: 1 to MAX_LIMIT + 1); PostgreSQL plans a named statement without that cost and keeps the
// parameter, so its connections hold one prepared statement per shape.
export interface LimitTerm {
    sql: string;                                                // `?` or the integer
    params: number[];                                           // [limit] or none
}

export function limitTerm(limit: number, postgres: boolean): LimitTerm {
    Hoek.assert(Number.isSafeInteger(limit) && limit >= 0, 'A limit is a non-negative integer:', limit);
    return postgres ? { sql: '?', params: [limit] } : { sql: String(limit), params: [] };
}
