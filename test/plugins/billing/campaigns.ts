import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { runCli } from '../../../manifest/cli';
import { caller, register } from '../../helpers/api';
import { testServer } from '../../helpers/server';

// Campaigns are made with the operator CLI (a user could otherwise grant themselves credit) and redeemed through
// the API, once per account, within their dates.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('campaigns', () => {

    it('are created with the CLI and redeemed once per account within their dates', async () => {
        const instance = await testServer();
        try {
            const out: string[] = [];
            const from = new Date(Date.now() - 3_600_000).toISOString();
            const until = new Date(Date.now() + 3_600_000).toISOString();
            expect(await runCli(['campaign', 'create', 'launch-week', '2500', 'USD', from, until], instance.config, (line) => out.push(line))).to.equal(0);
            expect(out).to.equal([`Campaign LAUNCH-WEEK grants 25.00 USD of credit, redeemable from ${from} until ${until}.`]);
            expect(await runCli(['campaign', 'create', 'LAUNCH-WEEK', '100', 'USD', from, until], instance.config, (line) => out.push(line))).to.equal(1);
            expect(out[1]).to.equal('A campaign with the code LAUNCH-WEEK exists');
            expect(await runCli(['campaign', 'create', 'bad code', '1.5', 'usd', 'x', 'y'], instance.config, (line) => out.push(line))).to.equal(2);
            expect(await runCli(['campaign', 'create', 'ENDED', '100', 'USD', '2020-01-01', '2020-02-01'], instance.config, () => { })).to.equal(0);

            const call = caller(() => instance.server);
            const [ann, ben] = [await register(instance.server, 'ann'), await register(instance.server, 'ben')];
            expect((await call('POST', '/v1/campaigns/redeem', ann.session, { code: 'launch-week' })).statusCode).to.equal(201);
            const again = await call('POST', '/v1/campaigns/redeem', ann.session, { code: 'LAUNCH-WEEK' });
            expect(again.statusCode).to.equal(409);
            expect((await call('POST', '/v1/campaigns/redeem', ben.session, { code: 'LAUNCH-WEEK' })).statusCode).to.equal(201);
            expect((await call('POST', '/v1/campaigns/redeem', ben.session, { code: 'ENDED' })).statusCode).to.equal(404);
            expect((await call('POST', '/v1/campaigns/redeem', ben.session, { code: 'NOSUCHCODE' })).statusCode).to.equal(404);

            const credit = (await call('GET', '/v1/credit', ann.session)).result;
            expect(credit.balances).to.equal([{ currency: 'USD', balance: 2500 }]);
            expect(credit.history).to.have.length(1);
            expect(credit.history[0]).to.include({ amount: 2500, reason: 'campaign' });
        }
        finally {
            await instance.stop();
        }
    });
});
