import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { exponentOf, formatMoney, roundHalfUp, toMinor } from '../../lib/billing/money';
import { priceBody, unitPrices } from '../../lib/billing/prices';
import { dayStart } from '../../lib/billing/usage';
import { DEFAULT_PRICE_LIST } from '../../lib/plans';
import { DEFAULT_VM_CATALOGUE } from '../../lib/vm/catalogue';

// Money in minor units (docs/billing.md): exponents by currency, exact conversion of configured prices, one
// half-up rounding per line, and the unit prices each kind is billed at.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('billing money', () => {

    it('converts configured prices to minor units by the currency\'s exponent, exactly', () => {
        expect(exponentOf('USD')).to.equal(2);
        expect(exponentOf('JPY')).to.equal(0);
        expect(exponentOf('KWD')).to.equal(3);
        expect(toMinor(7, 'USD')).to.equal(700);
        expect(toMinor(0.1, 'USD')).to.equal(10);               // not 10.000000000000002
        expect(toMinor(0.009, 'USD')).to.equal(0.9);            // kept exact until a line is rounded
        expect(toMinor(1200, 'JPY')).to.equal(1200);
        expect(toMinor(1.234, 'KWD')).to.equal(1234);
    });

    it('rounds half up once, including amounts a hair under a half in binary', () => {
        expect(roundHalfUp(4064.516129)).to.equal(4065);
        expect(roundHalfUp(0.5)).to.equal(1);
        expect(roundHalfUp(0.49)).to.equal(0);
        expect(roundHalfUp(1.005 * 100)).to.equal(101);         // 100.49999999999999 in binary
        expect(roundHalfUp(12000 * 252 / 744)).to.equal(4065);  // the worked example of docs/billing.md
    });

    it('formats minor units for receipts', () => {
        expect(formatMoney(5000, 'USD')).to.equal('50.00 USD');
        expect(formatMoney(5, 'USD')).to.equal('0.05 USD');
        expect(formatMoney(-1500, 'USD')).to.equal('-15.00 USD');
        expect(formatMoney(1200, 'JPY')).to.equal('1200 JPY');
        expect(formatMoney(1234, 'KWD')).to.equal('1.234 KWD');
    });

    it('prices each kind from the price list and the VM catalogue', () => {
        const body = priceBody(DEFAULT_PRICE_LIST, DEFAULT_VM_CATALOGUE);
        expect(unitPrices(body, 'app', 'standard')).to.include({ instanceMonthly: 2500, storageGiBMonthly: 0 });
        expect(unitPrices(body, 'worker', 'pro')).to.include({ instanceMonthly: 8500 });
        expect(unitPrices(body, 'cron-job', '')).to.include({ instanceMonthly: 100 });
        expect(unitPrices(body, 'database', 'pro')).to.include({ instanceMonthly: 12000, storageGiBMonthly: 0 });
        expect(unitPrices(body, 'vm', 's-1vcpu-2gb')).to.include({ instanceMonthly: 1200, storageGiBMonthly: 10, includedGiB: 50 });
        expect(unitPrices(body, 'vm', 'no-such-size')).to.include({ instanceMonthly: 0 });
        expect(unitPrices(priceBody({ ...DEFAULT_PRICE_LIST, currency: 'EUR' }, DEFAULT_VM_CATALOGUE), 'vm', 's-1vcpu-2gb')).to.include({ instanceMonthly: 0 });
    });

    it('reads days that exist on the calendar only', () => {
        expect(dayStart('2026-03-01')).to.equal('2026-03-01T00:00:00.000Z');
        expect(dayStart('2026-02-29')).to.be.null();
        expect(dayStart('2028-02-29')).to.equal('2028-02-29T00:00:00.000Z');
        expect(dayStart('2026-3-1')).to.be.null();
    });
});
