import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { Lifecycle, type StateMachine } from '../../lib/resources/lifecycle';
import { testDatabase, type TestDatabase } from '../helpers/server';

// The state machine of resources that are not deployed (databases, virtual machines), as data: a move is one
// conditional update, so of two racing requests one wins and the other gets the 409 naming the state it is in.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

type State = 'off' | 'on' | 'broken';
type Action = 'switchOn' | 'switchOff' | 'relabel';

const MACHINE: StateMachine<State, Action> = {
    switchOn: { from: ['off'], to: 'on', verb: 'switch on' },
    switchOff: { from: ['on', 'broken'], to: 'off', verb: 'switch off' },
    relabel: { from: ['off', 'on'] }
};

describe('a lifecycle', () => {

    let db: TestDatabase;
    const lamps = new Lifecycle<State, Action>('lamps', MACHINE, (lamp) => `the lamp ${lamp.id}`);

    before(async () => {
        db = await testDatabase();
        await db.knex.schema.createTable('lamps', (t) => {
            t.string('id').primary();
            t.string('status').notNullable();
            t.string('label');
            t.string('updated_at');
        });
    });

    after(async () => {
        await db?.stop();
    });

    it('moves a resource by an action and refuses a move its state does not allow, naming the state', async () => {
        await db.knex('lamps').insert({ id: 'a', status: 'off' });
        expect(await lamps.move(db.knex, { id: 'a', status: 'off' }, 'switchOn')).to.equal('on');
        expect((await db.knex('lamps').where({ id: 'a' }).first()).status).to.equal('on');
        expect(() => lamps.next({ id: 'a', status: 'on' }, 'switchOn')).to.throw('Cannot switch on the lamp a: it is on (it must be off)');
        const error = await lamps.move(db.knex, { id: 'a', status: 'broken' }, 'relabel').catch((err: unknown) => err);
        expect(error).to.be.an.error('Cannot relabel the lamp a: it is broken (it must be off or on)');
        expect((error as { output: { statusCode: number } }).output.statusCode).to.equal(409);
    });

    it('changes columns without a state when the action has none, still only from the states it allows', async () => {
        await db.knex('lamps').insert({ id: 'b', status: 'on' });
        expect(await lamps.move(db.knex, { id: 'b', status: 'on' }, 'relabel', { label: 'desk' })).to.equal('on');
        expect(await db.knex('lamps').where({ id: 'b' }).first('status', 'label')).to.equal({ status: 'on', label: 'desk' });
    });

    it('refuses the move a racing request made first with the state it made, and a resource that is gone with 404', async () => {
        await db.knex('lamps').insert({ id: 'c', status: 'off' });
        const stale = { id: 'c', status: 'off' as State };
        const outcomes = await Promise.allSettled([lamps.move(db.knex, stale, 'switchOn'), lamps.move(db.knex, stale, 'switchOn')]);
        expect(outcomes.map((outcome) => outcome.status).sort()).to.equal(['fulfilled', 'rejected']);
        const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason.message).to.equal('Cannot switch on the lamp c: it is on (it must be off)');

        const gone = await lamps.move(db.knex, { id: 'nowhere', status: 'off' }, 'switchOn').catch((err: { output: { statusCode: number }; message: string }) => err);
        expect(gone).to.include({ message: 'The lamp nowhere no longer exists' });
    });
});
