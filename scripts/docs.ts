// `npm run docs`: rewrites the generated parts of docs/: the scopes page from the route tables, the MCP tool list
// from the tool definitions.
import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { withToolList } from '../lib/docs/mcp-page';
import { renderScopesPage } from '../lib/docs/scopes-page';
import { servedTables } from '../manifest/api';
import { mcpToolList } from '../manifest/mcp';
import { ROUTE_TABLES } from '../manifest/routes';

const docs = Path.join(__dirname, '..', 'docs');
const mounted = new Set(servedTables().flatMap((table) => table.rows.map((row) => row.id)));
Fs.writeFileSync(Path.join(docs, 'scopes.md'), renderScopesPage(ROUTE_TABLES, mounted));
console.log('docs/scopes.md written');

const mcpPage = Path.join(docs, 'mcp.md');
Fs.writeFileSync(mcpPage, withToolList(Fs.readFileSync(mcpPage, 'utf8'), mcpToolList()));
console.log('docs/mcp.md: tool list written');
