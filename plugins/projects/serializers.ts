import type { Role } from '../../lib/roles';
import type { Project } from '../../lib/models/project';

export function publicProject(project: Project, role: Role | null) {
    return {
        id: project.id,
        name: project.name,
        kind: project.kind,
        status: project.status,
        role,
        createdAt: project.createdAt,
        updatedAt: project.updatedAt
    };
}

export interface MemberRow {
    projectId: string;
    userId: string;
    email: string;
    name: string;
    role: Role;
    createdAt: string;
    updatedAt: string;
}

export function publicMember(member: MemberRow) {
    return {
        userId: member.userId,
        projectId: member.projectId,
        email: member.email,
        name: member.name,
        role: member.role,
        createdAt: member.createdAt,
        updatedAt: member.updatedAt
    };
}
