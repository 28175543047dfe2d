import { deriveKey } from '../../lib/crypto';
import { CREDENTIALS_KEY_PURPOSE, type DatabaseProvisioner } from '../../lib/provisioner/driver';
import { RecordsProvisioner } from '../../lib/provisioner/records';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { databasesTable } from '../../manifest/routes/databases';
import { databaseRoutes, LOADERS } from './routes/databases';
import { DatabasesService, DELETE_JOB, PROVISION_JOB } from './services/databases';
import { IMPORT_JOB, ImportsService } from './services/imports';

// The databases family: managed PostgreSQL databases through a provisioner (lib/provisioner: `records` keeps state,
// `postgres` makes real ones), with the runtime-resource mechanisms for lists, event and import logs, search, the
// cascade on delete and the allocation history billing meters. Provisioning, deleting and importing run as jobs.
export interface DatabasesPluginOptions {
    provisioner: DatabaseProvisioner;
    encryptionKey: string;
    outboundAllowlist: readonly string[];
}

export const databasesPlugin: FamilyPlugin<DatabasesPluginOptions> = {
    name: 'hostless-databases',
    table: databasesTable,
    dependencies: ['hostless-auth', 'hostless-jobs', 'hostless-resources'],
    register(server, options) {
        const { services } = server.plugins['hostless-resources'];
        const { queue } = server.plugins['hostless-jobs'];
        const databases = new DatabasesService({
            services, queue, provisioner: options.provisioner, sealKey: deriveKey(options.encryptionKey, CREDENTIALS_KEY_PURPOSE)
        }, new RecordsProvisioner());
        const imports = new ImportsService(databases, options.outboundAllowlist);

        queue.handle(PROVISION_JOB, (payload: { databaseId: string }, context) => databases.provision(payload.databaseId, context));
        queue.handle(DELETE_JOB, (payload: { databaseId: string }, context) => databases.destroy(payload.databaseId, context));
        queue.handle(IMPORT_JOB, (payload: { importId: string }, context) => imports.run(payload.importId, context));
        server.ext('onPostStop', () => options.provisioner.close());
        bindRoutes(server, databasesTable, databaseRoutes(databases, imports), LOADERS);
    }
};
