'use strict';
// `npm test`: runs the lab suite, checks that no credential reached any log line of the run, and ends with one line
// `N passed, N failed[, N skipped]`. Extra arguments go to lab (e.g. `npm test -- test/auth`).
const ChildProcess = require('node:child_process');
const Fs = require('node:fs');
const Path = require('node:path');

const root = Path.join(__dirname, '..');
const output = Path.join(root, '.test-output');
const summaryFile = Path.join(output, 'summary.json');
const logDir = Path.join(output, 'logs');

Fs.rmSync(logDir, { recursive: true, force: true });
Fs.rmSync(summaryFile, { force: true });
Fs.mkdirSync(output, { recursive: true });

const args = process.argv.slice(2);
const lab = ChildProcess.spawnSync(process.execPath, [
    require.resolve('@hapi/lab/bin/lab'),
    '--typescript', '-a', '@hapi/code', '-m', '30000',
    '-r', 'console', '-o', 'stdout',
    '-r', Path.join(__dirname, 'lab-summary.js'), '-o', summaryFile,
    ...(args.length ? args : ['test'])
], { cwd: root, stdio: 'inherit', env: { ...process.env } });

const summary = Fs.existsSync(summaryFile) ? JSON.parse(Fs.readFileSync(summaryFile, 'utf8')) : { passed: 0, failed: 0, skipped: 0, errors: ['lab wrote no summary'], leaks: [] };

// Secrets in logs: API keys, refresh tokens and JWTs never appear in a log line, whatever the test did.
const credential = /svk_[0-9A-Za-z]{8,}_[0-9A-Za-z]{20,}|svr_[0-9A-Za-z]{20,}|svo[ars]_[0-9A-Za-z]{20,}|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]+/;
let leakedLines = 0;
for (const file of Fs.existsSync(logDir) ? Fs.readdirSync(logDir) : []) {
    for (const line of Fs.readFileSync(Path.join(logDir, file), 'utf8').split('\n')) {
        if (credential.test(line)) {
            ++leakedLines;
        }
    }
}

if (leakedLines) {
    console.log(`\nlog check: ${leakedLines} log line(s) of this run contain a credential`);
    summary.failed += 1;
}

const problems = summary.errors.length + (summary.leaks.length ? 1 : 0);
if (problems) {
    console.log(`\nlab reported ${summary.errors.length} script error(s) and ${summary.leaks.length} global leak(s)`);
}

const failed = summary.failed + problems + (lab.status !== 0 && !summary.failed && !problems ? 1 : 0);
console.log(`\n${summary.passed} passed, ${failed} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
