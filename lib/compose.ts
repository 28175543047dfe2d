import * as Hapi from '@hapi/hapi';
import Hoek from '@hapi/hoek';
import Joi from 'joi';

// A glue-shaped manifest: server options plus an ordered plugin list with options. Validated once, never mutated.
export interface Manifest {
    server: Hapi.ServerOptions;
    register: { plugins: ReadonlyArray<{ plugin: Hapi.NamedPlugin<never>; options?: unknown }> };
}

const schema = Joi.object({
    server: Joi.object().required(),
    register: Joi.object({
        plugins: Joi.array().items(Joi.object({
            plugin: Joi.object({ name: Joi.string().required(), register: Joi.func().required() }).unknown().required(),
            options: Joi.any()
        })).required()
    }).required()
});

export async function compose(manifest: Manifest): Promise<Hapi.Server> {
    Joi.assert(manifest, schema, 'The server manifest is malformed:');
    const names = manifest.register.plugins.map((entry) => entry.plugin.name);
    Hoek.assert(new Set(names).size === names.length, 'The server manifest lists a plugin twice:', names.join(', '));

    const server = Hapi.server({ ...manifest.server });
    for (const entry of manifest.register.plugins) {
        const registration = { plugin: entry.plugin, options: entry.options ?? {} } as Hapi.ServerRegisterPluginObject<unknown>;
        await server.register(registration);
    }

    return server;
}
