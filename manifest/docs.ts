import * as Path from 'node:path';

/** docs/ beside the manifest: in the source tree, and in dist/ where the build copies it. The dashboard's docs site
 * and the MCP documentation tools serve this one folder. */
export const DOCS_DIR = Path.join(__dirname, '..', 'docs');
