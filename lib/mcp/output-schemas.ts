import * as z from 'zod';

// The shapes of the REST bodies the platform tools return, as output schemas: a client checks structured content
// against them, and a model that reads them knows the fields before the first call. Loose objects: a kind may add
// fields of its own (a cron job's schedule, a site's address), which pass through; the fields named here are always
// there, with these types (test/mcp/outputs.ts checks every tool's results against them).

const timestamps = { createdAt: z.string(), updatedAt: z.string() };

export const projectOutput = z.looseObject({
    id: z.string(),
    name: z.string(),
    kind: z.string(),
    status: z.string(),
    role: z.string().nullable(),
    ...timestamps
});

/** An app, site, worker or cron job (lib/resources/family.ts serialize). */
export const runtimeOutput = z.looseObject({
    id: z.string(),
    name: z.string(),
    projectId: z.string(),
    status: z.string(),
    plan: z.string(),
    region: z.string(),
    instances: z.number().int(),
    buildCommand: z.string().nullable(),
    startCommand: z.string().nullable(),
    repository: z.object({ provider: z.string(), repo: z.string(), branch: z.string() }).nullable(),
    autoDeploy: z.boolean(),
    liveDeploymentId: z.string().nullable(),
    ...timestamps
});

export const databaseOutput = z.looseObject({
    id: z.string(),
    name: z.string(),
    projectId: z.string(),
    status: z.string(),
    engine: z.string(),
    version: z.string(),
    tier: z.string(),
    storageGiB: z.number().int(),
    ...timestamps
});

export const listOutput = (item: z.ZodObject) => z.object({ items: z.array(item), nextCursor: z.string().optional() });
