import { PassThrough } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { lines, MAX_LINE } from '../../lib/runtime/process/children';
import { treeOf } from '../../lib/runtime/process/sampler';
import { DestinationPolicy } from '../../lib/outside/destination';
import { DeploymentFailure } from '../../lib/runtime/driver';
import { fetchSource, gitUrlProblem } from '../../lib/runtime/process/source';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('the process runtime\'s parts', () => {

    it('splits output into lines, cutting a line longer than 32 KiB so the log store marks it truncated', async () => {
        const stream = new PassThrough();
        const seen: string[] = [];
        lines(stream, (line) => seen.push(line));
        stream.write('first\r\nsec');
        stream.write(`ond\n${'x'.repeat(20_000)}`);
        stream.write(`${'x'.repeat(20_000)}\nlast without newline`);
        stream.end();
        await new Promise((resolve) => stream.on('end', resolve));
        expect(seen.length).to.equal(4);
        expect(seen[0]).to.equal('first');
        expect(seen[1]).to.equal('second');
        expect(seen[2].length).to.equal(MAX_LINE + 1);                 // over the store's 32 KiB: cut and marked there
        expect(seen[3]).to.equal('last without newline');
    });

    it('finds an instance\'s process tree: its group, and descendants that left it', () => {
        const proc = (pid: number, ppid: number, pgrp: number) => ({ pid, ppid, pgrp, state: 'S', ticks: 1, rss: 4096 });
        const table = [proc(100, 1, 100), proc(101, 100, 100), proc(102, 101, 102), proc(103, 102, 103), proc(200, 1, 200)];
        expect(treeOf(table, 100).map((entry) => entry.pid)).to.equal([100, 101, 102, 103]);
    });

    it('accepts https Git URLs, and file:// only where allowed, never with credentials', () => {
        expect(gitUrlProblem('https://git.example.com/a/b.git', false)).to.be.null();
        expect(gitUrlProblem('file:///srv/repo', false)).to.equal('file:// repositories are allowed only in laptop mode or with RUNTIME_ALLOW_FILE_GIT=true');
        expect(gitUrlProblem('file:///srv/repo', true)).to.be.null();
        expect(gitUrlProblem('https://user:token@git.example.com/a/b.git', true)).to.include('must not hold credentials');
        expect(gitUrlProblem('ssh://git.example.com/a/b.git', true)).to.include('must use https');
        expect(gitUrlProblem('not a url', true)).to.include('must be a Git URL');
    });

    it('refuses to clone from an address the outbound rules refuse, before git runs', async () => {
        const logged: string[] = [];
        const attempt = fetchSource(
            { projectId: 'prj_x', name: 'app', repository: { provider: 'git', repo: 'https://127.0.0.1:9/acme/app.git', branch: 'main' }, commitSha: null, dir: '/nonexistent/never-made' },
            { git: null, policy: new DestinationPolicy([]), allowFileGit: false, timeoutMs: 5000, tmpDir: '/tmp', path: '/usr/bin:/bin' },
            async (line) => {
                logged.push(line);
            });
        const err = await expect(attempt).to.reject(DeploymentFailure);
        expect(err.message).to.equal('127.0.0.1 resolves to a loopback address, which is not allowed');
        expect(logged).to.equal([]);
    });
});
