import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Yaml from 'yaml';

import { nestsDeeperThan } from '../../lib/service-file/nesting';

// The depth bound that runs before a service file is parsed: it may over-estimate, never under-estimate.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const depth = (value: unknown): number => Array.isArray(value) ? 1 + Math.max(0, ...value.map(depth))
    : value && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;

/** Whether the bound holds: a text `real` levels deep is found deeper than `real - 1`. */
const covers = (text: string, real: number): boolean => real === 0 || nestsDeeperThan(text, real - 1);

// A small deterministic generator (mulberry32), so a failure can be replayed.
function random(seed: number): () => number {
    return () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

describe('the service file nesting bound', () => {

    it('never under-estimates the depth of YAML and JSON in block, compact, flow and mixed styles', () => {
        const next = random(11);
        const value = (levels: number): unknown => levels === 0 || next() < 0.2 ? 'x [y] #z'
            : next() < 0.5 ? Array.from({ length: 1 + Math.floor(next() * 2) }, () => value(levels - 1))
                : Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 2) }, (_, i) => [`k${i}`, value(levels - 1)]));
        const styles: Yaml.ToStringOptions[] = [{}, { indentSeq: false }, { collectionStyle: 'flow' }, { indent: 1 }, { indent: 4, indentSeq: false }];
        for (let i = 0; i < 200; ++i) {
            const tree = value(8);
            for (const style of styles) {
                const text = Yaml.stringify(tree, style);
                expect(covers(text, depth(Yaml.parse(text))), text).to.be.true();
            }

            const json = JSON.stringify(tree);
            expect(covers(json, depth(tree)), json).to.be.true();
        }
    });

    it('counts compact sequences, blank and comment lines, block scalars and brackets inside strings as they are', () => {
        const cases: Array<[string, number]> = [
            ['- - - - - - - a\n            - b\n            - - - - - - c\n', 12],
            ['a:\n  b:\n\n    # c [[[[\n    c:\n      d: 1\n', 4],
            ['a: "[[[[ {{{{"\nb: |\n  [[[[\n  - - - -\nc: \'[[[[\'\n', 1],
            ['a:\n- b:\n  - c:\n    - d\n', 6]
        ];
        for (const [text, real] of cases) {
            expect(depth(Yaml.parse(text)), text).to.equal(real);
            expect(covers(text, real), text).to.be.true();
            expect(nestsDeeperThan(text, 3 * real + 2), 'over-estimated by more than 3x').to.be.false();
        }
    });
});
