import type { RouteTable } from '../../lib/route-table';

// The MCP server's own routes (not /v1 API routes): `public` takes no credential, `key` takes an API key, session
// JWT or OAuth token, checked with the API's introspection on every request. GET and DELETE on the MCP endpoints
// answer 405: the server is stateless and opens no stream.
export const mcpPlatformTable: RouteTable = {
    family: 'mcp-platform',
    rows: [
        { id: 'mcp.health', method: 'GET', path: '/health', auth: 'public', description: 'Liveness: `{ ok, service, baseUrl, docsMcpPath }`.' },
        { id: 'mcp.resourceMetadata', method: 'GET', path: '/.well-known/oauth-protected-resource', auth: 'public', description: 'OAuth protected-resource metadata (RFC 9728) for /mcp.' },
        { id: 'mcp.resourceMetadata.mcp', method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', auth: 'public', description: 'The same metadata at the path-inserted address of RFC 9728 section 3.1.' },
        { id: 'mcp.platform', method: 'POST', path: '/mcp', auth: 'key', scope: null, description: 'Platform tools acting on the caller\'s resources (streamable HTTP, stateless).' },
        { id: 'mcp.platform.get', method: 'GET', path: '/mcp', auth: 'public', description: 'Not supported: 405.' },
        { id: 'mcp.platform.delete', method: 'DELETE', path: '/mcp', auth: 'public', description: 'Not supported: 405.' }
    ]
};

export const mcpDocsTable: RouteTable = {
    family: 'mcp-docs',
    rows: [
        { id: 'mcp.docs', method: 'POST', path: '/mcp/docs', auth: 'public', description: 'Public, read-only documentation tools (streamable HTTP, stateless).' },
        { id: 'mcp.docs.get', method: 'GET', path: '/mcp/docs', auth: 'public', description: 'Not supported: 405.' },
        { id: 'mcp.docs.delete', method: 'DELETE', path: '/mcp/docs', auth: 'public', description: 'Not supported: 405.' }
    ]
};

export const MCP_ROUTE_TABLES: readonly RouteTable[] = [mcpPlatformTable, mcpDocsTable];
