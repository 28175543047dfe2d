import * as Fs from 'node:fs';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

// The dependency direction of architecture.md: lib <- manifest/routes <- plugins <- manifest <- test, no plugin
// importing a sibling, and the environment read in manifest/ only.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const root = Path.join(__dirname, '..');

function sources(dir: string): string[] {
    return Fs.readdirSync(Path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        const relative = Path.join(dir, entry.name);
        return entry.isDirectory() ? sources(relative) : entry.name.endsWith('.ts') ? [relative] : [];
    });
}

function imports(file: string): string[] {
    const text = Fs.readFileSync(Path.join(root, file), 'utf8');
    return [...text.matchAll(/(?:import|export)[^'"]*from\s+'(\.[^']+)'|require\('(\.[^']+)'\)/g)]
        .map((match) => Path.relative(root, Path.resolve(Path.dirname(Path.join(root, file)), match[1] ?? match[2])));
}

describe('architecture', () => {

    it('keeps lib free of plugins, manifest and tests', () => {
        for (const file of sources('lib')) {
            for (const target of imports(file)) {
                expect(target.startsWith('lib'), `${file} imports ${target}`).to.be.true();
            }
        }
    });

    it('keeps the route tables pure data over lib', () => {
        for (const file of sources('manifest/routes')) {
            for (const target of imports(file)) {
                expect(target.startsWith('lib') || target.startsWith('manifest/routes'), `${file} imports ${target}`).to.be.true();
            }
        }
    });

    it('never lets a plugin import a sibling plugin or the composition root', () => {
        for (const file of sources('plugins')) {
            const family = file.split(Path.sep)[1];
            for (const target of imports(file)) {
                const allowed = target.startsWith('lib') || target.startsWith('manifest/routes') || target.startsWith(`plugins${Path.sep}${family}`);
                expect(allowed, `${file} imports ${target}`).to.be.true();
            }
        }
    });

    it('reads the environment in manifest/ only', () => {
        for (const file of [...sources('lib'), ...sources('plugins')]) {
            expect(Fs.readFileSync(Path.join(root, file), 'utf8'), file).to.not.include('process.env');
        }
    });

    it('keeps files small enough to read', () => {
        for (const file of [...sources('lib'), ...sources('plugins'), ...sources('manifest')]) {
            const lines = Fs.readFileSync(Path.join(root, file), 'utf8').split('\n').length;
            expect(lines, `${file} has ${lines} lines`).to.be.below(450);
        }
    });
});
