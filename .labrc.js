'use strict';
// zod v4 (pulled in by the MCP SDK) defines these globals on first load.
module.exports = { globals: '__zod_globalConfig,__zod_globalRegistry' };
