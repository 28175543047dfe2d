import Joi from 'joi';

import { idPattern } from '../lib/ids';
import type { TestDataConfig } from '../lib/test-data/gates';
import { ConfigError } from './config-sections';
import type { Env } from './env';

// The test-data settings (docs/test-data.md): off unless MCP_TEST_DATA_ENABLED, and then only in a NODE_ENV of local,
// dev or development (lib/test-data/gates.ts). TEST_DATA_ENVIRONMENTS is a JSON map of environment names to
// { "database": "hostless_test_<name>" } or, for dashboard fixtures, { "database": <the API's>, "dashboardFixtures": true }.

const environments = Joi.object().pattern(/^[a-z0-9_-]{1,40}$/, Joi.object({ database: Joi.string().pattern(/^[\w.-]{1,63}$/).required(), dashboardFixtures: Joi.boolean() }));

export function testDataSettings(value: Env): TestDataConfig {
    let parsed: unknown = {};
    try {
        parsed = value.TEST_DATA_ENVIRONMENTS ? JSON.parse(value.TEST_DATA_ENVIRONMENTS) : {};
    }
    catch {
        throw new ConfigError('TEST_DATA_ENVIRONMENTS is not valid JSON: set it to a map such as {"dev":{"database":"hostless_test_dev"}}.');
    }

    const checked = environments.validate(parsed);
    if (checked.error) {
        throw new ConfigError(`TEST_DATA_ENVIRONMENTS is not valid: ${checked.error.details[0].message}; set it to a map such as {"dev":{"database":"hostless_test_dev"}}.`);
    }

    const userIds = (value.MCP_TEST_DATA_USER_IDS ?? '').split(',').map((item) => item.trim()).filter(Boolean);
    if (userIds.some((id) => !idPattern('usr').test(id))) {
        throw new ConfigError('MCP_TEST_DATA_USER_IDS is not valid: set it to a comma list of user ids such as usr_4f9KqzT0aBcD1eFg.');
    }

    return { enabled: value.MCP_TEST_DATA_ENABLED, userIds, environments: checked.value as TestDataConfig['environments'], dashboardEnabled: value.TEST_DATA_DASHBOARD_ENABLED };
}
