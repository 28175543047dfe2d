import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import * as z from 'zod';

import { runEval, TASKS } from '../../bench/tool-eval';
import { compactSchema } from '../../lib/mcp/compact-schema';
import { toolCosts, totalCost } from '../../lib/mcp/token-cost';
import { listing } from '../../lib/mcp/tool';
import { platformCatalogue } from '../../plugins/mcp-platform';

// What the default platform tool list costs an agent, and whether it still says enough to act on: the 30 tools
// under 5,500 tokens (o200k) with every create and patch field typed, and the tool-use eval at 20/20.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const definitions = platformCatalogue({ readOnly: false, allowedTools: null }).offered;
const listed = definitions.map(listing);

describe('the platform tool list', () => {

    it('costs under 5,500 tokens for its 30 tools', () => {
        const total = totalCost(toolCosts(listed, countTokens));
        expect(total.tools).to.equal(30);
        expect(total.tokens).to.be.below(5500);
    });

    it('costs under 8,000 tokens for all 46 tools with both diagnostic groups on', () => {
        const catalogue = platformCatalogue({ readOnly: false, allowedTools: null, diagnostics: { developer: true, context: true } });
        const all = [...catalogue.offered, ...(catalogue.deploy ? [catalogue.deploy] : []), ...catalogue.diagnostics].map(listing);
        const total = totalCost(toolCosts(all, countTokens));
        expect(total.tools).to.equal(46);
        expect(total.tokens).to.be.below(8000);
    });

    it('types every field of every create and patch tool', () => {
        const untyped: string[] = [];
        for (const tool of listed.filter((item) => /_(create|patch)$/.test(item.name))) {
            for (const [name, property] of Object.entries(tool.inputSchema.properties as Record<string, { type?: unknown }>)) {
                if (property.type === undefined) {
                    untyped.push(`${tool.name}.${name}`);
                }
            }
        }

        expect(untyped).to.equal([]);
    });

    it('lists schemas that accept and refuse what the full schemas do, on their types and choices', () => {
        const compact = compactSchema({ $schema: 'x', type: 'object', properties: { a: { description: 'A DNS label.', type: 'string', minLength: 1, maxLength: 2000, pattern: '^[a-z]+$' }, b: { anyOf: [{ type: 'string', maxLength: 63 }, { type: 'null' }], description: 'B' }, c: { type: 'string', pattern: '^x$' } } });
        expect(compact).to.equal({ type: 'object', properties: { a: { description: 'A DNS label.', type: 'string' }, b: { description: 'B', type: ['string', 'null'], maxLength: 63 }, c: { type: 'string', pattern: '^x$' } } });
        const full = z.toJSONSchema(definitions.find((tool) => tool.name === 'apps_create')!.inputSchema, { io: 'input' }) as { properties: Record<string, { type?: unknown; enum?: unknown }> };
        const shown = listed.find((tool) => tool.name === 'apps_create')!.inputSchema as { properties: Record<string, { type?: unknown; enum?: unknown }> };
        expect(Object.keys(shown.properties)).to.equal(Object.keys(full.properties));
        expect(shown.properties.region.enum).to.equal(full.properties.region.enum);
    });

    it('still tells an agent which tool and arguments a plain-language task needs (20/20)', () => {
        const results = runEval(listed);
        expect(results.filter((result) => !result.pass).map((result) => `${result.task.say} -> ${result.chosen} ${JSON.stringify(result.args)}`)).to.equal([]);
        expect(results).to.have.length(TASKS.length);
        expect(TASKS).to.have.length(20);
    });

    it('fails the eval when descriptions stop telling the tools apart', () => {
        const blind = listed.map((tool) => ({ ...tool, title: 'A tool', description: 'A tool.' }));
        expect(runEval(blind).filter((result) => result.pass).length).to.be.below(20);
    });
});
