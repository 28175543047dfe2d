import { Model, snakeCaseMappers } from 'objection';

/** Base of every model: camelCase in code, snake_case in the database. Models are never bound to a global knex:
 * each query names its knex or transaction (`User.query(trx)`), so several servers can live in one process. */
export class BaseModel extends Model {
    static override get columnNameMappers() {
        return snakeCaseMappers();
    }

    static override useLimitInFirst = true;
}
