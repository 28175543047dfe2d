import { runtimeFamilyPlugin } from '../../lib/resources/family';
import { RuntimeResource } from '../../lib/resources/model';
import { WORKERS, workersTable } from '../../manifest/routes/workers';

// The workers family: a runtime kind and nothing else. Settings, environment, collaborators, scaling, restarts,
// deployments through the runtime driver, logs, metrics, search and commits all come from lib/resources.
export class Worker extends RuntimeResource {
    static override tableName = 'workers';
}

export const workersPlugin = runtimeFamilyPlugin<Worker, object>({
    name: 'hostless-workers',
    table: workersTable,
    kind: WORKERS,
    adapter: { model: Worker }
});
