import type { VmDriver } from './driver';

// The VM driver that keeps state only: machines move through their states as recorded, nothing boots, no address is
// allocated and nothing is measured.
export class RecordsVmDriver implements VmDriver {
    readonly name = 'records';

    create(): Promise<{ ipv4: string | null }> {
        return Promise.resolve({ ipv4: null });
    }

    start(): Promise<void> {
        return Promise.resolve();
    }

    stop(): Promise<void> {
        return Promise.resolve();
    }

    restart(): Promise<void> {
        return Promise.resolve();
    }

    resize(): Promise<void> {
        return Promise.resolve();
    }

    firewall(): Promise<void> {
        return Promise.resolve();
    }

    destroy(): Promise<void> {
        return Promise.resolve();
    }

    observes(): boolean {
        return false;
    }
}
