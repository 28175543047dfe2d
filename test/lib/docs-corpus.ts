import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { docsCorpus } from '../../lib/docs/corpus';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('docsCorpus()', () => {

    it('reads and indexes a folder once, and again when a file is added, changed or removed', () => {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-corpus-'));
        try {
            Fs.writeFileSync(Path.join(dir, 'index.md'), '# Home\n\nWelcome.\n');
            Fs.writeFileSync(Path.join(dir, 'apps.md'), '# Apps\n\nDeploy an app.\n');
            const first = docsCorpus(dir);
            expect(first.pages.map((page) => page.path)).to.equal(['index', 'apps']);
            expect(docsCorpus(dir)).to.shallow.equal(first);
            expect(docsCorpus(`${dir}/`)).to.shallow.equal(first);

            Fs.writeFileSync(Path.join(dir, 'apps.md'), '# Apps\n\nDeploy an app, then roll it back.\n');
            const changed = docsCorpus(dir);
            expect(changed).to.not.shallow.equal(first);
            expect(changed.index.search('roll back').map((hit) => hit.page.path)).to.equal(['apps']);
            expect(first.index.search('roll back')).to.equal([]);

            Fs.mkdirSync(Path.join(dir, 'guides'));
            Fs.writeFileSync(Path.join(dir, 'guides', 'deploy.md'), '# Deploy\n\nSteps.\n');
            const added = docsCorpus(dir);
            expect(added.pages.map((page) => page.path)).to.equal(['index', 'apps', 'guides/deploy']);

            Fs.rmSync(Path.join(dir, 'guides'), { recursive: true });
            expect(docsCorpus(dir).pages.map((page) => page.path)).to.equal(['index', 'apps']);
        }
        finally {
            Fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
