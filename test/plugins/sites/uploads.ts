import * as Fs from 'node:fs';
import * as Http from 'node:http';
import * as Path from 'node:path';
import { Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { ArchiveRefusal, readArchive } from '../../../lib/archives';
import { caller, joinProject, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';
import { createSiteFromUpload, edgeRequest, siteLive, tarGz, uploadForm, zip } from '../../helpers/sites';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// Uploads (api-contract.md section 9): the access checks run before the archive is read, bad archives are refused
// with nothing kept, and files are stored once by content, kept for the last 10 deployments, and deleted only when
// nothing names them.
describe('site uploads', () => {

    let instance: TestServer;
    let owner: TestUser;
    let viewer: TestUser;
    let port: number;
    const call = caller(() => instance.server);
    let counter = 0;
    const unique = () => `up-${Date.now().toString(36)}-${++counter}`;

    const blobs = () => {
        const root = Path.join(instance.config.dataDir, 'files');
        const walk = (dir: string): string[] => Fs.existsSync(dir) ? Fs.readdirSync(dir, { withFileTypes: true })
            .flatMap((entry) => entry.isDirectory() ? walk(Path.join(dir, entry.name)) : [Path.join(dir, entry.name)]) : [];
        return walk(root).map((file) => Path.relative(root, file)).sort();
    };
    const rows = async () => {
        const knex = instance.server.app.knex;
        return {
            sites: (await knex('sites').count('* as n').first())!.n, deployments: (await knex('deployments').count('* as n').first())!.n,
            files: (await knex('deployment_files').count('* as n').first())!.n, stored: (await knex('stored_files').count('* as n').first())!.n
        };
    };

    before(async () => {
        instance = await testServer({}, { start: true });
        instance.server.plugins['hostless-jobs'].queue.start();
        port = instance.server.info.port as number;
        owner = await register(instance.server, 'uploader');
        viewer = await register(instance.server, 'upload-viewer');
        await joinProject(instance.server, owner, owner.projectId, viewer, 'viewer');
    });

    after(async () => {
        await instance?.stop();
    });

    it('refuses bad archives with the entry named, leaving no file and no row behind', { timeout: 120_000 }, async () => {
        const big = Buffer.alloc(25 * 1024 ** 2 + 1, 0x61);
        const cases: Array<[string, Buffer, number, string]> = [
            ['traversal', tarGz([{ name: 'index.html', content: 'ok' }, { name: 'a/../../evil.html', content: 'x' }]), 400, 'The archive entry "a/../../evil.html" leaves the archive\'s folder ("..")'],
            ['absolute path', tarGz([{ name: '/etc/passwd', content: 'x' }]), 400, 'The archive entry "/etc/passwd" is an absolute path'],
            ['symbolic link', tarGz([{ name: 'index.html', content: 'ok' }, { name: 'secrets', type: '2', linkname: '/etc/shadow' }]), 400, 'The archive entry "secrets" is a link'],
            ['hard link', tarGz([{ name: 'index.html', content: 'ok' }, { name: 'copy', type: '1', linkname: 'index.html' }]), 400, 'The archive entry "copy" is a link'],
            ['device file', tarGz([{ name: 'null', type: '3' }]), 400, 'The archive entry "null" is a device file or pipe'],
            ['zip traversal', zip([{ name: 'index.html', content: 'ok' }, { name: '../evil.html', content: 'x' }]), 400, 'The archive entry "../evil.html" leaves the archive\'s folder'],
            ['zip symbolic link', zip([{ name: 'link', content: '/etc/passwd', mode: 0o120777 }]), 400, 'The archive entry "link" is a link'],
            ['too many entries', tarGz(Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}.txt`, content: '' }))), 413, 'The archive has more than 10000 entries'],
            ['too large a file', tarGz([{ name: 'index.html', content: 'ok' }, { name: 'big.bin', content: big }]), 413, 'The archive entry "big.bin" is larger than 25 MiB'],
            ['not an archive', Buffer.from('just some text, neither tar nor zip'), 400, 'The archive could not be read'],
            ['no files', tarGz([{ name: 'empty/', type: '5' }]), 400, 'The archive holds no files']
        ];
        const site = (await createSiteFromUpload(instance.server, owner, unique(), tarGz([{ name: 'index.html', content: 'first' }]), { projectId: owner.projectId })).result;
        await siteLive(instance.server, owner, site.name, site.deployment.id);
        const before = { rows: await rows(), blobs: blobs() };
        for (const [label, archive, status, message] of cases) {
            const created = await createSiteFromUpload(instance.server, owner, unique(), archive, { projectId: owner.projectId });
            expect([created.statusCode, created.result.message.startsWith(message)], `${label}: ${created.result.message}`).to.equal([status, true]);
            const form = uploadForm(null, archive);
            const added = await call('POST', `/v1/sites/${site.name}/upload`, owner.session, form.payload, form.headers);
            expect(added.statusCode, label).to.equal(status);
            expect({ rows: await rows(), blobs: blobs() }, label).to.equal(before);
        }

        expect((await edgeRequest(port, `${site.name}.localhost`, '/')).body.toString()).to.equal('first');
    });

    it('runs the role and project checks before reading the archive', async () => {
        const site = (await createSiteFromUpload(instance.server, owner, unique(), tarGz([{ name: 'index.html', content: 'x' }]), { projectId: owner.projectId })).result;
        const stranger = await register(instance.server, 'upload-stranger');
        // The request never sends its archive's end: an answer proves the checks did not wait for it.
        const refusedEarly = (path: string, user: TestUser, metadata: object | null) => new Promise<{ status: number; body: any }>((resolve, reject) => {
            const boundary = 'earlyboundary';
            const request = Http.request({
                host: '127.0.0.1', port, path, method: 'POST', agent: false,
                headers: { authorization: user.session, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(50 * 1024 ** 2) }
            }, (response) => {
                const chunks: Buffer[] = [];
                response.on('data', (chunk: Buffer) => chunks.push(chunk));
                response.on('end', () => {
                    request.destroy();
                    resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) });
                });
            });
            request.on('error', (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err));
            const head = metadata ? `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(metadata)}\r\n` : '';
            request.write(`${head}--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="a.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`);
            request.write(Buffer.alloc(64 * 1024, 1));
        });

        const asViewer = await refusedEarly('/v1/sites/from-upload', viewer, { name: unique(), projectId: owner.projectId });
        expect([asViewer.status, asViewer.body.message]).to.equal([403, 'This action requires the developer role or higher in the project']);
        const outsider = await refusedEarly('/v1/sites/from-upload', stranger, { name: unique(), projectId: owner.projectId });
        expect([outsider.status, outsider.body.message]).to.equal([404, 'Project not found']);
        const notTheirs = await refusedEarly(`/v1/sites/${site.name}/upload`, stranger, null);
        expect([notTheirs.status, notTheirs.body.message]).to.equal([404, 'Site not found']);
        const viewerUpload = await refusedEarly(`/v1/sites/${site.name}/upload`, viewer, null);
        expect(viewerUpload.status).to.equal(403);
        const taken = await refusedEarly('/v1/sites/from-upload', owner, { name: site.name, projectId: owner.projectId });
        expect([taken.status, taken.body.message]).to.equal([409, `The name ${site.name} is taken`]);

        const badMetadata = await createSiteFromUpload(instance.server, owner, 'Not A Label', tarGz([{ name: 'index.html', content: 'x' }]), { projectId: owner.projectId });
        expect(badMetadata.statusCode).to.equal(400);
        expect(badMetadata.result.message).to.match(/^The "metadata" part is not valid: "name"/);
        const key = await call('POST', '/v1/users/me/api-keys', owner.session, { name: 'uploads', scopes: ['sites:write'] });
        const noProject = uploadForm({ name: unique() }, tarGz([{ name: 'index.html', content: 'x' }]));
        const keyed = await call('POST', '/v1/sites/from-upload', key.result.token, noProject.payload, noProject.headers);
        expect([keyed.statusCode, keyed.result.message]).to.equal([400, '"projectId" is required when using an API key or OAuth token']);
        const archiveFirst = await call('POST', '/v1/sites/from-upload', owner.session, ...(() => {
            const form = uploadForm(null, tarGz([{ name: 'index.html', content: 'x' }]));
            return [form.payload, form.headers] as const;
        })());
        expect([archiveFirst.statusCode, archiveFirst.result.message]).to.equal([400, 'The "metadata" part must come before the "archive" part']);
    });

    it('stores a file once for every site that holds it, and deletes it when nothing names it', async () => {
        const shared = 'the same bytes in two sites';
        const a = (await createSiteFromUpload(instance.server, owner, unique(), tarGz([{ name: 'index.html', content: 'a' }, { name: 'shared.txt', content: shared }]), { projectId: owner.projectId })).result;
        const b = (await createSiteFromUpload(instance.server, owner, unique(), tarGz([{ name: 'index.html', content: 'b' }, { name: 'copy/shared.txt', content: shared }]), { projectId: owner.projectId })).result;
        await siteLive(instance.server, owner, a.name, a.deployment.id);
        await siteLive(instance.server, owner, b.name, b.deployment.id);
        const knex = instance.server.app.knex;
        const hash = (await knex('deployment_files').where({ deployment_id: a.deployment.id, path: '/shared.txt' }).first()).hash;
        const blob = Path.join(instance.config.dataDir, 'files', hash.slice(0, 2), hash.slice(2, 4), hash);
        expect((await knex('stored_files').where({ hash }).first()).refs).to.equal(2);
        const stats = await call('GET', `/v1/sites/${b.name}/deployments/${b.deployment.id}/metrics/build-stats`, owner.session);
        expect(stats.result.files).to.include({ count: 2, newFiles: 1, reusedFiles: 1, kept: true });

        expect((await call('DELETE', `/v1/sites/${a.name}`, owner.session)).statusCode).to.equal(204);
        expect(Fs.existsSync(blob), 'still named by the other site').to.be.true();
        expect((await edgeRequest(port, `${b.name}.localhost`, '/copy/shared.txt')).body.toString()).to.equal(shared);
        expect((await call('DELETE', `/v1/sites/${b.name}`, owner.session)).statusCode).to.equal(204);
        expect(Fs.existsSync(blob), 'named by nothing').to.be.false();
        expect(await knex('stored_files').where({ hash }).first()).to.not.exist();
    });

    it('keeps the files of the last 10 deployments; a redeploy names the live files again', async () => {
        const name = unique();
        const first = (await createSiteFromUpload(instance.server, owner, name, tarGz([{ name: 'index.html', content: 'version 0' }]), { projectId: owner.projectId })).result;
        await siteLive(instance.server, owner, name, first.deployment.id);
        const deployments = [first.deployment.id];
        for (let i = 1; i <= 10; ++i) {
            const form = uploadForm(null, tarGz([{ name: 'index.html', content: `version ${i}` }]));
            const added = await call('POST', `/v1/sites/${name}/upload`, owner.session, form.payload, form.headers);
            expect(added.statusCode).to.equal(201);
            await siteLive(instance.server, owner, name, added.result.id);
            deployments.push(added.result.id);
        }

        // The release is housekeeping after the deployment went live (in the same job, after its commit).
        const knex = instance.server.app.knex;
        await eventually(async () => (await knex('site_builds').where({ deployment_id: deployments[0] }).first()).pruned, (pruned) => !!pruned, 'the oldest build released');
        expect(await knex('deployment_files').where({ deployment_id: deployments[0] }).first()).to.not.exist();
        expect(!!(await knex('site_builds').where({ deployment_id: deployments[1] }).first()).pruned).to.be.false();
        const rerun = await call('POST', `/v1/sites/${name}/deployments/${deployments[0]}/rerun`, owner.session);
        expect(rerun.statusCode).to.equal(409);
        expect(rerun.result.message).to.include('are no longer kept');

        const redeploy = await call('POST', `/v1/sites/${name}/deployments/new`, owner.session, {});
        expect(redeploy.statusCode).to.equal(201);
        await siteLive(instance.server, owner, name, redeploy.result.id);
        expect((await edgeRequest(port, `${name}.localhost`, '/')).body.toString()).to.equal('version 10');
        const back = await call('POST', `/v1/sites/${name}/deployments/${deployments[5]}/rerun`, owner.session);
        await siteLive(instance.server, owner, name, back.result.id);
        expect((await edgeRequest(port, `${name}.localhost`, '/')).body.toString()).to.equal('version 5');
        const empty = await call('POST', '/v1/sites', owner.session, { name: unique() });
        const nothing = await call('POST', `/v1/sites/${empty.result.name}/deployments/new`, owner.session, {});
        expect([nothing.statusCode, nothing.result.message]).to.equal([409, `${empty.result.name} has no files to deploy yet: upload an archive (POST /v1/sites/${empty.result.name}/upload) or publish its visual builder`]);
    });

    it('reads archives within every limit while streaming (small limits)', async () => {
        const staging = Fs.mkdtempSync(Path.join(instance.config.dataDir, 'limits-'));
        const read = (archive: Buffer, limits: object) => readArchive(Readable.from([archive]), staging, async (_path, content) => {
            content.resume();
            await new Promise((resolve) => content.on('end', resolve));
        }, { compressedBytes: 1024 ** 2, totalBytes: 1024 ** 2, entries: 100, fileBytes: 1024 ** 2, ...limits });
        const archive = tarGz([{ name: 'a.txt', content: 'x'.repeat(3000) }, { name: 'b.txt', content: 'y'.repeat(3000) }]);
        expect(await read(archive, {})).to.include({ format: 'tar', entries: 2, bytes: 6000 });
        await expect(read(archive, { totalBytes: 5000 })).to.reject(ArchiveRefusal, 'The archive unpacks to more than 0 MiB');
        await expect(read(archive, { compressedBytes: 10 })).to.reject(ArchiveRefusal, 'The archive is larger than 0 MiB');
        await expect(read(archive, { entries: 1 })).to.reject(ArchiveRefusal, 'The archive has more than 1 entries');
        expect(await read(zip([{ name: 'dir/index.html', content: 'z' }]), {})).to.include({ format: 'zip', entries: 1, bytes: 1 });
    });
});
