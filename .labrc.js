'use strict';
// zod v4 (pulled in by the MCP SDK) defines these globals on first load; playwright-core (the browser tests) adds
// signal-exit's symbol when it launches Chromium; bullmq's bundled helpers define __spreadArray.
module.exports = { globals: '__zod_globalConfig,__zod_globalRegistry,Symbol(signal-exit emitter),__spreadArray' };
