import { BaseModel } from '../../../lib/db/model';
import { RuntimeResource } from '../../../lib/resources/model';

export class App extends RuntimeResource {
    static override tableName = 'apps';
}

/** A worker process of an app (a queue consumer beside the web process): it ships with the app's next deployment. */
export class AppProcess extends BaseModel {
    static override tableName = 'app_processes';

    id!: string;
    appId!: string;
    projectId!: string;
    name!: string;
    command!: string;
    instances!: number;
    createdAt!: string;
    updatedAt!: string;
}
