import type { MetricName } from '../resources/metrics';
import type { FirewallRule } from './firewall';

// A VM driver performs on a hypervisor what the control plane decided, behind one interface, so the services and
// routes never know which one they talk to. `records` (the only driver here) keeps state and measures nothing: every
// VM body names its driver, and metric series are empty with `source: "unavailable"`. A real driver (libvirt,
// Proxmox, a cloud's API) implements these calls; each is idempotent, since a job that was interrupted calls again:
//   create   boots the machine from the image with the size's resources and the SSH keys, applying the firewall;
//            resolves once it runs, with the address it was given (null when it allocates none)
//   start    powers a stopped machine on; stop powers it off (gracefully, then forcibly), keeping its disk
//   restart  reboots a running machine; resolves once it runs again
//   resize   applies new CPU, memory and disk to a stopped machine (the disk only grows)
//   firewall replaces the inbound rules (everything not allowed is refused; outbound is open)
//   destroy  removes the machine and its disk; nothing when it is gone already
//   observes which metric series it measures (cpu-usage, memory-usage, network-in, network-out, disk-usage); the
//            points it measures go to the metrics store (lib/resources/metrics.ts) under the VM's id
export interface VmTarget {
    id: string;
    name: string;
    size: string;
    image: string;
    region: string;
    vcpus: number;
    memoryMiB: number;
    diskGiB: number;
    sshKeys: ReadonlyArray<{ name: string; fingerprint: string; publicKey: string }>;
    firewall: readonly FirewallRule[];
}

export interface VmContext {
    signal: AbortSignal;
}

/** A failure of the machine itself (an image that does not boot), as opposed to the driver's or the platform's. */
export class VmFailure extends Error { }

export interface VmDriver {
    readonly name: string;
    create(target: VmTarget, context: VmContext): Promise<{ ipv4: string | null }>;
    start(target: VmTarget): Promise<void>;
    stop(target: VmTarget): Promise<void>;
    restart(target: VmTarget, context: VmContext): Promise<void>;
    resize(target: VmTarget): Promise<void>;
    firewall(target: VmTarget): Promise<void>;
    destroy(target: VmTarget, context: VmContext): Promise<void>;
    observes(metric: MetricName): boolean;
}
