import * as Net from 'node:net';

/** A free port on 127.0.0.1, from the system (free when asked: a caller binds it soon after). */
export function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = Net.createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as Net.AddressInfo;
            server.close(() => resolve(port));
        });
    });
}
