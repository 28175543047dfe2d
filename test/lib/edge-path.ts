import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { pathOf } from '../../lib/edge/edge';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

// The edge reads a request's path without the URL parser when nothing in it would change; the answer must be the one
// the parser gives (decoded, dot segments resolved) for every path.
const parsed = (url: string) => {
    try {
        return decodeURIComponent(new URL(url, 'http://edge.invalid').pathname);
    }
    catch {
        return null;
    }
};

describe('the edge\'s request path', () => {

    it('is what the URL parser gives, for plain and unusual paths alike', () => {
        const cases = ['/', '/a', '/a/', '/a.b', '/.well-known/x', '/a/./b', '/a/../b', '/..', '/.', '/a/..', '/a?x=1', '/a?x=/../y', '/a b', '/é', '/"<>`{}|^',
            '//x', '/a//b', '/%2e%2e/x', '/a%20b', '/%zz', '/a\\b', '/x#y', '/a..', '/..a', '/a/.b/', '/a;b=c', '/a ', '/a\tb'];
        for (const url of cases) {
            expect(pathOf(url), url).to.equal(parsed(url));
        }

        expect(pathOf('/%zz')).to.be.null();
        expect(pathOf('/app.js?v=2')).to.equal('/app.js');
    });

    it('is what the URL parser gives for random paths', () => {
        const chars = ['/', '.', 'a', '?', '#', '%', '2', 'e', '\\', ' ', 'é', ';', ':', '@', '"', '\t', '|', '[', ']'];
        let seed = 7;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        for (let i = 0; i < 20_000; ++i) {
            let url = '/';
            for (let n = 1 + Math.floor(next() * 8); n > 0; --n) {
                url += chars[Math.floor(next() * chars.length)];
            }

            expect(pathOf(url), JSON.stringify(url)).to.equal(parsed(url));
        }
    });
});
