import * as Lab from '@hapi/lab';

import { mountedTables } from '../../manifest/api';
import { securitySuite } from '../helpers/security-suite';
import { testServer } from '../helpers/server';

// Every mounted route of the platform, every step of the precedence (test/helpers/security-suite.ts).
const script = exports.lab = Lab.script();

securitySuite(script, mountedTables(), () => testServer());
