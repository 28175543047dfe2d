// `npm run docs`: rewrites the generated pages of docs/ from the route tables.
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { renderScopesPage } from '../lib/docs/scopes-page';
import { mountedTables } from '../manifest/api';
import { ROUTE_TABLES } from '../manifest/routes';

const mounted = new Set(mountedTables().flatMap((table) => table.rows.map((row) => row.id)));
Fs.writeFileSync(Path.join(__dirname, '..', 'docs', 'scopes.md'), renderScopesPage(ROUTE_TABLES, mounted));
console.log('docs/scopes.md written');
