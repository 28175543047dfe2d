import { BaseModel } from '../db/model';

export class User extends BaseModel {
    static override tableName = 'users';

    id!: string;
    email!: string;
    name!: string;
    passwordHash!: string;
    adminSince!: string | null;
    disabledAt!: string | null;
    createdAt!: string;
    updatedAt!: string;
}

export function normalizeEmail(email: string): string {
    return email.trim().toLowerCase();
}
