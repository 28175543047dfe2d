'use strict';
// `npm test`: lints the project (typescript-eslint, eslint.config.mjs), runs the lab suite with code coverage against
// COVERAGE_THRESHOLD, checks that no credential reached any log line of the run, and ends with one line
// `N passed, N failed[, N skipped]`. Extra arguments go to lab alone, without lint or coverage (e.g.
// `npm test -- test/auth`); a failed lint or a coverage below the threshold counts as one failed check each.
const ChildProcess = require('node:child_process');
const Fs = require('node:fs');
const Os = require('node:os');
const Path = require('node:path');

const root = Path.join(__dirname, '..');
const output = Path.join(root, '.test-output');
const summaryFile = Path.join(output, 'summary.json');
const logDir = Path.join(output, 'logs');

Fs.rmSync(logDir, { recursive: true, force: true });
Fs.rmSync(summaryFile, { force: true });
Fs.mkdirSync(output, { recursive: true });

// The measured figure of a full run minus one point (README.md, "Tests"): raise it as coverage grows. It holds for a
// run that skips nothing (CI gives every test its service); a run that skips tests (no PostgreSQL, Redis or Chromium
// here) leaves their code unrun, and prints its figure without failing on it.
const COVERAGE_THRESHOLD = 91;

const args = process.argv.slice(2);
const full = !args.length;
let lintFailed = false;
if (full) {
    console.log('lint: eslint .');
    const lint = ChildProcess.spawnSync(process.execPath, [Path.join(Path.dirname(require.resolve('eslint/package.json')), 'bin', 'eslint.js'), '.'], { cwd: root, stdio: 'inherit' });
    lintFailed = lint.status !== 0;
    console.log(lintFailed ? 'lint: failed' : 'lint: clean');
}

// This run's temporary folder: every test folder, and so every release folder the runtime tests start processes in,
// lies below it, which lets the process check below count this run's processes only (another checkout's suite may
// run beside it on the same machine). World-writable and sticky like /tmp, since tests act as other users too.
const runTmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-test-'));
Fs.chmodSync(runTmp, 0o1777);

const coverage = full ? ['-c', '--coverage-exclude', 'bench', '--coverage-exclude', 'scripts', '--coverage-exclude', 'dist', '--coverage-exclude', 'data'] : [];
// The whole suite in one process holds every test script and, with coverage, the instrumented sources: past 4 GB
// (V8's default limit here), so the lab process gets 8 GB.
const lab = ChildProcess.spawnSync(process.execPath, [
    '--max-old-space-size=8192',
    require.resolve('@hapi/lab/bin/lab'),
    '--typescript', '-a', '@hapi/code', '-m', '30000',
    ...coverage,
    '-r', Path.join(__dirname, 'lab-console.js'), '-o', 'stdout',
    '-r', Path.join(__dirname, 'lab-summary.js'), '-o', summaryFile,
    ...(full ? ['test'] : args)
], { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: runTmp, HOSTLESS_COVERAGE_THRESHOLD: String(COVERAGE_THRESHOLD) } });

// A lab that died (out of memory, say) leaves no summary or an empty one: that is a failed run, said as one.
const written = Fs.existsSync(summaryFile) ? Fs.readFileSync(summaryFile, 'utf8') : '';
const summary = written.trim() ? JSON.parse(written) : { passed: 0, failed: 0, skipped: 0, errors: [`lab wrote no summary (it exited with ${lab.status ?? lab.signal})`], leaks: [] };

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

// Processes left behind: the process runtime's tests run user code under uids 23000-23999 (test/helpers/runtime.ts)
// in release folders below runTmp; when the suite is over none of them may still run (zombies, already exited, do
// not count).
const leftBehind = [];
for (const entry of Fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let status;
    try {
        status = Fs.readFileSync(`/proc/${entry}/status`, 'utf8');
    }
    catch {
        continue;
    }

    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    if (uid >= 23000 && uid <= 23999 && !/^State:\s+Z/m.test(status) && ownCwd(entry)) {
        leftBehind.push(`${entry} (${/^Name:\s+(.*)$/m.exec(status)?.[1]}, uid ${uid})`);
    }
}

function ownCwd(pid) {
    try {
        return Fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(runTmp + Path.sep);
    }
    catch {
        return true;            // unreadable: count it rather than miss one of ours
    }
}

Fs.rmSync(runTmp, { recursive: true, force: true });

if (leftBehind.length) {
    console.log(`\nprocess check: ${leftBehind.length} process(es) of the runtime tests still running: ${leftBehind.join(', ')}`);
    summary.failed += 1;
}

const problems = summary.errors.length + (summary.leaks.length ? 1 : 0);
if (problems) {
    console.log(`\nlab reported ${summary.errors.length} script error(s) and ${summary.leaks.length} global leak(s)`);
}

const coverageLow = full && summary.coverage !== undefined && summary.coverage < COVERAGE_THRESHOLD;
const coverageFailed = coverageLow && !summary.skipped;
if (coverageLow) {
    console.log(coverageFailed
        ? `\ncoverage check: ${summary.coverage.toFixed(2)}% is below the threshold of ${COVERAGE_THRESHOLD}%`
        : `\ncoverage check: ${summary.coverage.toFixed(2)}% with ${summary.skipped} test(s) skipped; the threshold of ${COVERAGE_THRESHOLD}% holds for a run that skips nothing`);
}

const failed = summary.failed + problems + (lintFailed ? 1 : 0) + (coverageFailed ? 1 : 0) +
    (lab.status !== 0 && !summary.failed && !problems && !coverageFailed ? 1 : 0);
console.log(`\n${summary.passed} passed, ${failed} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
