import * as Lab from '@hapi/lab';

import { GIZMO_PLUGINS, gizmosTable } from '../fixtures/gizmos';
import { securitySuite } from '../helpers/security-suite';
import { testServer } from '../helpers/server';

// The proof that the mechanism is shared: a kind defined in the tests with only a model, an adapter and a table gets
// the whole generated security suite, every step of the precedence, collaborators included.
const script = exports.lab = Lab.script();

securitySuite(script, [gizmosTable], () => testServer({}, { plugins: GIZMO_PLUGINS }), [gizmosTable]);
