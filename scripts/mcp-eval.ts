// `npm run -s mcp:eval`: the tool-use eval (bench/tool-eval.ts) over the default platform tool list with every kind
// on, as tools/list shows it: 20 plain-language tasks, a deterministic matcher, the score.
import { runEval, TASKS } from '../bench/tool-eval';
import { listing } from '../lib/mcp/tool';
import { platformCatalogue } from '../plugins/mcp-platform';

const tools = platformCatalogue({ readOnly: false, allowedTools: null }).offered.map(listing);
const results = runEval(tools);
for (const result of results) {
    console.log(`${result.pass ? 'pass' : 'FAIL'}  ${result.task.say}\n      expected ${result.task.tool} ${JSON.stringify(result.task.args)}${result.pass ? '' : `\n      chose    ${result.chosen ?? '(a tie)'} ${JSON.stringify(result.args)}`}`);
}

const passed = results.filter((result) => result.pass).length;
console.log(`tool-use eval: ${passed}/${TASKS.length} tasks over ${tools.length} tools`);
process.exit(passed === TASKS.length ? 0 : 1);
