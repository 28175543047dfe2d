import * as Dgram from 'node:dgram';

// A DNS server on 127.0.0.1 that answers TXT and A questions from two maps (anything else: NXDOMAIN), for testing the DNS
// probe adapter for real. Enough of RFC 1035: one question, uncompressed names in, a pointer to it in the answer.
export interface FakeDns {
    address: string;                                            // `127.0.0.1:<port>` for Resolver.setServers
    txt: Map<string, string[]>;
    a: Map<string, string[]>;                                   // IPv4 addresses by name
    stop(): Promise<void>;
}

export async function fakeDns(): Promise<FakeDns> {
    const txt = new Map<string, string[]>();
    const a = new Map<string, string[]>();
    const socket = Dgram.createSocket('udp4');
    socket.on('message', (query, remote) => {
        const labels: string[] = [];
        let offset = 12;
        while (query[offset]) {
            labels.push(query.subarray(offset + 1, offset + 1 + query[offset]).toString('latin1'));
            offset += query[offset] + 1;
        }

        const questionEnd = offset + 5;
        const type = query.readUInt16BE(offset + 1);
        const name = labels.join('.').toLowerCase();
        const records = type === 16 ? txt.get(name) ?? [] : type === 1 ? a.get(name) ?? [] : [];
        const header = Buffer.from(query.subarray(0, 12));
        header.writeUInt16BE(0x8180 | (records.length ? 0 : 3), 2);  // response, recursion available; NXDOMAIN when empty
        header.writeUInt16BE(1, 4);
        header.writeUInt16BE(records.length, 6);
        header.writeUInt16BE(0, 8);
        header.writeUInt16BE(0, 10);
        const answers = records.map((value) => {
            const data = type === 1 ? Buffer.from(value.split('.').map(Number)) : Buffer.concat([Buffer.from([value.length]), Buffer.from(value, 'latin1')]);
            const answer = Buffer.alloc(12);
            answer.writeUInt16BE(0xc00c, 0);                        // the name: a pointer to the question
            answer.writeUInt16BE(type, 2);
            answer.writeUInt16BE(1, 4);
            answer.writeUInt32BE(60, 6);
            answer.writeUInt16BE(data.length, 10);
            return Buffer.concat([answer, data]);
        });
        socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), remote.port, remote.address);
    });

    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return {
        address: `127.0.0.1:${socket.address().port}`,
        txt,
        a,
        stop: () => new Promise((resolve) => socket.close(() => resolve()))
    };
}
