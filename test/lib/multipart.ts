import { Readable } from 'node:stream';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { readForm, singleFileBody } from '../../lib/multipart';

// The multipart reader's text parts (a form's token before its file) and the one-file body the dashboard sends an
// upload on as: what one writes, the other reads back, with header-breaking characters of a filename defused.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const collect = async (stream: Readable) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
        chunks.push(chunk as Buffer);
    }

    return Buffer.concat(chunks);
};

describe('multipart', () => {

    const spec = { text: ['csrf'], file: 'archive', maxBytes: 1024 * 1024 };

    it('reads text parts before the file and refuses any other', async () => {
        const body = '--b\r\nContent-Disposition: form-data; name="csrf"\r\n\r\ntoken-1\r\n--b\r\nContent-Disposition: form-data; name="archive"; filename="a.zip"\r\nContent-Type: application/zip\r\n\r\nPK..\r\n--b--\r\n';
        const form = await readForm(Readable.from([Buffer.from(body)]), { 'content-type': 'multipart/form-data; boundary=b' }, spec);
        expect(form.text).to.equal({ csrf: 'token-1' });
        expect(form.file!.filename).to.equal('a.zip');
        expect((await collect(form.file!.stream)).toString()).to.equal('PK..');
        await form.finished;

        const other = body.replace('name="csrf"', 'name="other"');
        await expect(readForm(Readable.from([Buffer.from(other)]), { 'content-type': 'multipart/form-data; boundary=b' }, spec)).to.reject('The multipart part "other" is not expected here: send only "archive"');
    });

    it('sends one file as a body the reader takes back, a filename\'s quotes and line breaks defused', async () => {
        const file = { filename: 'evil".tar.gz\r\nX-Injected: 1', mimeType: 'application/gzip', stream: Readable.from([Buffer.from('one'), Buffer.from('two')]) };
        const body = await collect(Readable.from(singleFileBody('xyz', 'archive', file)));
        expect(body.toString()).to.not.contain('\r\nX-Injected');
        const form = await readForm(Readable.from([body]), { 'content-type': 'multipart/form-data; boundary=xyz' }, { file: 'archive', maxBytes: 1024 });
        expect(form.file!.filename).to.equal('evil_.tar.gz__X-Injected: 1');
        expect(form.file!.mimeType).to.equal('application/gzip');
        expect((await collect(form.file!.stream)).toString()).to.equal('onetwo');
        await form.finished;
    });
});
