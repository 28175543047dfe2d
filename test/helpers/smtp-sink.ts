import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps what it receives, parsed, and can be told to
// refuse the next message to an address at RCPT TO or at the end of DATA with a reply of its choosing. It asks for a login, so
// the adapter's handling of credentials in SMTP_URL is exercised too.
export interface ReceivedMail {
    envelopeFrom: string;
    envelopeTo: string[];
    raw: string;
    parsed: ParsedMail;
}

export interface SmtpSink {
    url: string;                                                // smtp://user:password@127.0.0.1:port
    password: string;
    received: ReceivedMail[];
    refuseNext(to: string, stage: 'rcpt' | 'data', code: number, message: string): void;
    stop(): Promise<void>;
}

export const SINK_USER = 'hostless-sink';

export async function smtpSink(): Promise<SmtpSink> {
    const password = `sink-${Math.random().toString(36).slice(2)}-password`;
    const received: ReceivedMail[] = [];
    const refusals: Array<{ to: string; stage: 'rcpt' | 'data'; code: number; message: string }> = [];
    const refusal = (stage: 'rcpt' | 'data', to: readonly string[]) => {
        const index = refusals.findIndex((entry) => entry.stage === stage && to.includes(entry.to));
        if (index < 0) {
            return null;
        }

        const [next] = refusals.splice(index, 1);
        return Object.assign(new Error(next.message), { responseCode: next.code });
    };

    const server = new SMTPServer({
        disabledCommands: ['STARTTLS'],
        allowInsecureAuth: true,
        logger: false,
        onAuth(auth, _session, callback) {
            const ok = auth.username === SINK_USER && auth.password === password;
            callback(ok ? null : new Error('Invalid username or password'), ok ? { user: SINK_USER } : undefined);
        },
        onRcptTo(address, _session, callback) {
            callback(refusal('rcpt', [address.address]));
        },
        onData(stream, session, callback) {
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('end', () => {
                const refused = refusal('data', session.envelope.rcptTo.map((rcpt) => rcpt.address));
                if (refused) {
                    return callback(refused);
                }

                const raw = Buffer.concat(chunks).toString('utf8');
                simpleParser(raw).then((parsed) => {
                    received.push({
                        envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                        envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
                        raw,
                        parsed
                    });
                    callback();
                }, callback);
            });
        }
    });

    await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.server.address() as { port: number };
    return {
        url: `smtp://${SINK_USER}:${password}@127.0.0.1:${port}`,
        password,
        received,
        refuseNext: (to, stage, code, message) => void refusals.push({ to, stage, code, message }),
        stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
    };
}
