import type { Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';

// What a tool list costs an agent: the tokens of each tool's name, description and input schema as tools/list
// shows them (the part every model reads on every turn), counted with a tokenizer the caller passes (the bench and
// the tests use o200k), and the bytes of output schemas apart (clients use them to check results; few put them in
// the model's context).

export interface ToolCost {
    name: string;
    tokens: number;
    outputSchemaBytes: number;
}

export function toolCosts(tools: readonly ListedTool[], countTokens: (text: string) => number): ToolCost[] {
    return tools.map((tool) => ({
        name: tool.name,
        tokens: countTokens(tool.name) + countTokens(tool.description ?? '') + countTokens(JSON.stringify(tool.inputSchema)),
        outputSchemaBytes: tool.outputSchema ? Buffer.byteLength(JSON.stringify(tool.outputSchema)) : 0
    }));
}

export function totalCost(costs: readonly ToolCost[]): { tools: number; tokens: number; outputSchemaBytes: number } {
    return costs.reduce((sum, cost) => ({ tools: sum.tools + 1, tokens: sum.tokens + cost.tokens, outputSchemaBytes: sum.outputSchemaBytes + cost.outputSchemaBytes }), { tools: 0, tokens: 0, outputSchemaBytes: 0 });
}
