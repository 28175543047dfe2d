import { BaseModel } from '../db/model';
import type { Permission } from '../roles';

/** A user outside a project granted one app or worker, with permissions from view, deploy, operate, manage. */
export class Collaborator extends BaseModel {
    static override tableName = 'collaborators';
    static override jsonAttributes = ['permissions'];

    id!: string;
    resourceType!: string;
    resourceId!: string;
    projectId!: string;
    userId!: string;
    permissions!: Permission[];
    createdAt!: string;
    updatedAt!: string;
}
