import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testDataMounted } from '../../lib/test-data/gates';
import { loadMcpConfig } from '../../manifest/config';

// The test-data settings as read from the environment (manifest/test-data-config.ts): off by default, parsed and
// checked when set, and mounted only in a development NODE_ENV.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const ON = {
    NODE_ENV: 'development', MCP_TEST_DATA_ENABLED: 'true', MCP_TEST_DATA_USER_IDS: 'usr_4f9KqzT0aBcD1eFg, usr_AAAAAAAAAAAAAAAA',
    TEST_DATA_ENVIRONMENTS: '{"dev":{"database":"hostless_test_dev"},"dashboard":{"database":"hostless","dashboardFixtures":true}}'
};

describe('test-data configuration', () => {

    it('is off with nothing set', () => {
        const config = loadMcpConfig({});
        expect(config.testData).to.equal({ enabled: false, userIds: [], environments: {}, dashboardEnabled: false });
        expect(testDataMounted(config.nodeEnv, config.testData)).to.be.false();
    });

    it('reads the switch, the allow-list and the environments, and mounts only in development', () => {
        const config = loadMcpConfig({ ...ON, TEST_DATA_DASHBOARD_ENABLED: '1' });
        expect(config.testData).to.equal({
            enabled: true, userIds: ['usr_4f9KqzT0aBcD1eFg', 'usr_AAAAAAAAAAAAAAAA'], dashboardEnabled: true,
            environments: { dev: { database: 'hostless_test_dev' }, dashboard: { database: 'hostless', dashboardFixtures: true } }
        });
        expect(testDataMounted(config.nodeEnv, config.testData)).to.be.true();
        for (const nodeEnv of ['local', 'dev']) {
            expect(testDataMounted(nodeEnv, config.testData)).to.be.true();
        }

        for (const nodeEnv of ['production', 'test', 'Development', 'staging', '']) {
            const other = loadMcpConfig({ ...ON, NODE_ENV: nodeEnv });
            expect(testDataMounted(other.nodeEnv, other.testData), nodeEnv).to.be.false();
        }
    });

    it('refuses malformed settings, naming them', () => {
        expect(() => loadMcpConfig({ ...ON, TEST_DATA_ENVIRONMENTS: '{dev' })).to.throw(/^TEST_DATA_ENVIRONMENTS is not valid JSON/);
        expect(() => loadMcpConfig({ ...ON, TEST_DATA_ENVIRONMENTS: '{"dev":{"db":"x"}}' })).to.throw(/^TEST_DATA_ENVIRONMENTS is not valid/);
        expect(() => loadMcpConfig({ ...ON, MCP_TEST_DATA_USER_IDS: 'ada@example.com' })).to.throw(/^MCP_TEST_DATA_USER_IDS is not valid/);
        expect(() => loadMcpConfig({ ...ON, MCP_TEST_DATA_ENABLED: 'maybe' })).to.throw(/^MCP_TEST_DATA_ENABLED is not valid/);
    });
});
