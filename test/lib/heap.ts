import * as ChildProcess from 'node:child_process';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

// HEAP_GROWING_PERCENT (lib/heap.ts) bounds how far the old generation grows past what survives a full collection.
// A child process applies a setting, holds about 60 MB of live objects, and allocates objects that live long
// enough to reach the old generation; it reports the largest old space it saw and what was live after a collection.
// Left to V8, the same program peaked at 336 MB over 62 MB live; at 10% it peaked at 105 MB, at 300% at 335.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const CHURN = `
const V8 = require('node:v8');
require(${JSON.stringify(Path.join(__dirname, '..', '..', 'lib', 'heap'))}).applyHeapGrowth(Number(process.argv[1]));
const oldSpace = () => V8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
const live = Array.from({ length: 300000 }, (_, i) => ({ i, s: 'x'.repeat(20) + i }));
global.gc();                                            // the limit is set from what survived: the live objects
const ring = new Array(100000);                       // each object outlives two scavenges: it reaches the old generation
let peak = 0;
for (let n = 0; n < 4000000; ++n) {
    ring[n % ring.length] = { n, a: [n, n + 1, n + 2], s: 'item ' + n };
    if (n % 10000 === 0) {
        peak = Math.max(peak, oldSpace().space_size);
    }
}
global.gc();
process.stdout.write(JSON.stringify({ peakMb: peak / 1048576, liveMb: oldSpace().space_used_size / 1048576, held: live.length + ring.length }));
`;

function churn(percent: number): { peakMb: number; liveMb: number } {
    const output = ChildProcess.execFileSync(process.execPath, ['--expose-gc', '-r', Path.join(__dirname, '..', '..', 'scripts', 'ts-register.js'), '-e', CHURN, String(percent)], { encoding: 'utf8' });
    return JSON.parse(output) as { peakMb: number; liveMb: number };
}

describe('the heap growing factor', () => {

    it('holds the old generation within twice what is live at 10%, and lets it grow past four times that at 300%', () => {
        const tight = churn(10);
        const loose = churn(300);
        expect(tight.liveMb).to.be.above(40);
        expect(tight.peakMb, JSON.stringify(tight)).to.be.at.most(tight.liveMb * 2);
        expect(loose.peakMb, JSON.stringify(loose)).to.be.at.least(loose.liveMb * 4);
    });
});
