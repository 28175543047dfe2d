import type { MetricName } from '../resources/metrics';
import type { VmContext, VmDriver, VmTarget } from './driver';

// The VM driver that keeps state only: machines move through their states as recorded, nothing boots, no address is
// allocated and nothing is measured.
export class RecordsVmDriver implements VmDriver {
    readonly name = 'records';

    create(_target: VmTarget, _context: VmContext): Promise<{ ipv4: string | null }> {
        return Promise.resolve({ ipv4: null });
    }

    start(_target: VmTarget): Promise<void> {
        return Promise.resolve();
    }

    stop(_target: VmTarget): Promise<void> {
        return Promise.resolve();
    }

    restart(_target: VmTarget, _context: VmContext): Promise<void> {
        return Promise.resolve();
    }

    resize(_target: VmTarget): Promise<void> {
        return Promise.resolve();
    }

    firewall(_target: VmTarget): Promise<void> {
        return Promise.resolve();
    }

    destroy(_target: VmTarget, _context: VmContext): Promise<void> {
        return Promise.resolve();
    }

    observes(_metric: MetricName): boolean {
        return false;
    }
}
