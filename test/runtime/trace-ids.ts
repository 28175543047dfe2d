import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { newTraceId } from '../../lib/runtime/process/proxy';

// The ids of traces the edge starts (lib/runtime/process/proxy.ts): the time in milliseconds, then 80 random bits.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('trace ids the edge starts', () => {

    it('are 32 hex digits that begin with their time, sort in time order and differ within one millisecond', () => {
        const now = Date.UTC(2026, 10, 28, 12);
        const ids = [newTraceId(now), newTraceId(now), newTraceId(now + 1), newTraceId(now + 60_000)];
        for (const id of ids) {
            expect(id).to.match(/^[0-9a-f]{32}$/);
        }

        expect(parseInt(ids[0].slice(0, 12), 16)).to.equal(now);
        expect(ids[0]).to.not.equal(ids[1]);
        expect(ids[0].slice(0, 12)).to.equal(ids[1].slice(0, 12));
        expect(ids[2] > ids[1] && ids[3] > ids[2]).to.be.true();
        expect(new Set(Array.from({ length: 2000 }, () => newTraceId(now).slice(12))).size).to.equal(2000);
    });
});
