import * as Lab from '@hapi/lab';

import { mountedTables } from '../../manifest/api';
import { securitySuite } from '../helpers/security-suite';
import { DIAGNOSTICS_ON, testServer } from '../helpers/server';
import { webhookSenders } from '../helpers/webhook-signers';

// Every mounted route of the platform, every step of the precedence (test/helpers/security-suite.ts); webhook routes
// signed by their senders' fakes.
const script = exports.lab = Lab.script();
const senders = webhookSenders();

script.before(() => senders.start());
script.after(() => senders.stop());
securitySuite(script, mountedTables(), () => testServer({ ...senders.config(), ...DIAGNOSTICS_ON }), [], senders.signers);
