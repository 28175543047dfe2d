import { CST, Lexer } from 'yaml';

/**
 * Whether a YAML text (JSON included) may nest deeper than `max` levels, read with the yaml package's lexer, which
 * keeps no stack of its own; the scan stops as soon as the bound passes `max`. The bound over-estimates, never
 * under-estimates: flow collections (`[`, `{`) count while open; a block collection starts with the first token of a
 * line or with the token after an indicator (`-`, `?`, `:`) on the same line, and ends at the first line indented
 * less than that token, so the columns of such tokens still open bound the block levels (twice: a sequence may sit
 * at its mapping key's column).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
    const columns: number[] = [];                               // open block levels, increasing
    let flow = 0;
    let column = 0;
    let lineStart = true;
    let afterIndicator = false;
    for (const token of new Lexer().lex(text)) {
        const type = CST.tokenType(token);
        if (type === 'doc-mode' || type === 'flow-error-end' || type === 'scalar') {
            continue;                                           // markers of the lexer's, not in the text
        }

        const at = column;
        const lastBreak = token.lastIndexOf('\n');
        column = lastBreak === -1 ? column + token.length : token.length - lastBreak - 1;
        if (type === 'newline' || type === 'space' || type === 'comment' || type === 'byte-order-mark') {
            lineStart ||= lastBreak !== -1;
            continue;
        }

        const starts = lineStart || afterIndicator;
        if (lineStart) {
            while (columns.length && columns[columns.length - 1] > at) {
                columns.pop();
            }
        }

        if (type === 'flow-seq-start' || type === 'flow-map-start') {
            ++flow;
        }
        else if (type === 'flow-seq-end' || type === 'flow-map-end') {
            flow = Math.max(0, flow - 1);
        }
        else if (starts && flow === 0 && (!columns.length || columns[columns.length - 1] < at)) {
            columns.push(at);
        }

        afterIndicator = type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind';

        if (2 * columns.length + flow > max) {
            return true;
        }

        lineStart = lastBreak !== -1 && lastBreak === token.length - 1;
    }

    return false;
}
