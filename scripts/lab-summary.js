'use strict';
// A lab reporter that writes the counts the test runner prints: passed, failed, skipped, plus script errors and leaks.
exports = module.exports = function (options) {

    this.settings = options;
};

exports.prototype.start = function () { };

exports.prototype.test = function () { };

exports.prototype.end = function (notebook) {

    const summary = { passed: 0, failed: 0, skipped: 0, failures: [], errors: [], leaks: notebook.leaks ?? [] };
    for (const test of notebook.tests) {
        if (test.skipped || test.todo) {
            ++summary.skipped;
        }
        else if (test.err) {
            ++summary.failed;
            summary.failures.push(`${test.title}: ${test.err.message ?? test.err}`);
        }
        else {
            ++summary.passed;
        }
    }

    for (const err of notebook.errors ?? []) {
        summary.errors.push(err.message);
    }

    if (notebook.coverage) {
        summary.coverage = notebook.coverage.percent;
    }

    this.report(JSON.stringify(summary));
};
