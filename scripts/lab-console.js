'use strict';
// lab's console reporter without the per-file list of uncovered lines (thousands of lines on a full run): the run
// prints the coverage figure and the threshold alone. `npm test -- -c -r html -o coverage.html` shows the lines.
const Console = require('@hapi/lab/lib/reporters/console');

exports = module.exports = function (options) {

    Console.call(this, options);
};

exports.prototype = Object.create(Console.prototype);

exports.prototype.end = function (notebook) {

    const coverage = notebook.coverage;
    Console.prototype.end.call(this, { ...notebook, coverage: undefined });
    if (coverage) {
        this.report(`Coverage: ${coverage.percent.toFixed(2)}% (${coverage.sloc - coverage.hits}/${coverage.sloc} lines uncovered; threshold ${process.env.HOSTLESS_COVERAGE_THRESHOLD}% for a run that skips nothing)\n`);
    }
};
