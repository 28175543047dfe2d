// Which tools a request is offered. The operator sets the ceiling (MCP_READ_ONLY, MCP_ALLOWED_TOOLS); a client
// narrows it per request with `X-MCP-Tools`, never widening it. Both lists use one syntax: comma-separated tool
// names (`apps_list`) and groups (`apps`: the five apps tools), plus the word `readonly`, which keeps only the tools
// with the read-only hint (`readonly` alone: every read-only tool; `apps,readonly`: apps_list and apps_get).

export interface Selectable {
    name: string;
    group: string;
    annotations: { readOnlyHint: boolean };
}

export interface Selection {
    readOnly: boolean;
    names: ReadonlySet<string> | null;                          // null: every tool
}

export const READONLY = 'readonly';

export class SelectionError extends Error { }

/** Parses a list; an entry that names no known tool or group is an error naming it. An empty list selects nothing away. */
export function parseSelection(text: string, known: readonly Selectable[]): Selection {
    const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
    const groups = new Map<string, string[]>();
    for (const tool of known) {
        groups.set(tool.group, [...groups.get(tool.group) ?? [], tool.name]);
    }

    const names = new Set<string>();
    const unknown: string[] = [];
    let readOnly = false;
    for (const entry of entries) {
        if (entry === READONLY) {
            readOnly = true;
        }
        else if (groups.has(entry)) {
            groups.get(entry)!.forEach((name) => names.add(name));
        }
        else if (known.some((tool) => tool.name === entry)) {
            names.add(entry);
        }
        else {
            unknown.push(entry);
        }
    }

    if (unknown.length) {
        throw new SelectionError(`unknown tool or group: ${unknown.join(', ')} (known groups: ${[...groups.keys()].join(', ')}; or a tool name, or ${READONLY})`);
    }

    return { readOnly, names: names.size ? names : null };
}

export function selects(selection: Selection, tool: Selectable): boolean {
    return (!selection.readOnly || tool.annotations.readOnlyHint) && (!selection.names || selection.names.has(tool.name));
}

/** The tools both the operator's selection and the request's allow, in catalogue order. */
export function selectTools<T extends Selectable>(tools: readonly T[], operator: Selection, request: Selection | null): T[] {
    return tools.filter((tool) => selects(operator, tool) && (!request || selects(request, tool)));
}
