import Joi from 'joi';

import { REGIONS } from '../plans';

// What virtual machines are offered, at what price: a versioned catalogue, the deployment's own (VM_CATALOGUE_FILE
// replaces it with a JSON file of the same shape). Each VM records the version it was created under.
export interface VmSize {
    slug: string;
    vcpus: number;
    memoryMiB: number;
    diskGiB: number;                                            // included; the disk may be grown beyond it
    pricePerHour: number;
    pricePerMonth: number;
}

export interface VmCatalogue {
    version: string;
    currency: string;
    sizes: VmSize[];
    images: Array<{ slug: string; name: string }>;
    regions: string[];
    extraDiskPerGiBMonth: number;                               // disk beyond the size's own
    maxDiskGiB: number;
}

export const DEFAULT_VM_CATALOGUE: VmCatalogue = {
    version: '2026-11-01',
    currency: 'USD',
    sizes: [
        { slug: 's-1vcpu-1gb', vcpus: 1, memoryMiB: 1024, diskGiB: 25, pricePerHour: 0.009, pricePerMonth: 6 },
        { slug: 's-1vcpu-2gb', vcpus: 1, memoryMiB: 2048, diskGiB: 50, pricePerHour: 0.018, pricePerMonth: 12 },
        { slug: 's-2vcpu-4gb', vcpus: 2, memoryMiB: 4096, diskGiB: 80, pricePerHour: 0.036, pricePerMonth: 24 },
        { slug: 's-4vcpu-8gb', vcpus: 4, memoryMiB: 8192, diskGiB: 160, pricePerHour: 0.071, pricePerMonth: 48 },
        { slug: 's-8vcpu-16gb', vcpus: 8, memoryMiB: 16384, diskGiB: 320, pricePerHour: 0.143, pricePerMonth: 96 }
    ],
    images: [
        { slug: 'debian-12', name: 'Debian 12 (bookworm)' },
        { slug: 'ubuntu-24.04', name: 'Ubuntu 24.04 LTS' },
        { slug: 'ubuntu-22.04', name: 'Ubuntu 22.04 LTS' },
        { slug: 'rocky-9', name: 'Rocky Linux 9' }
    ],
    regions: [...REGIONS],
    extraDiskPerGiBMonth: 0.1,
    maxDiskGiB: 2048
};

const slug = Joi.string().pattern(/^[a-z0-9][a-z0-9.-]{0,63}$/);
const money = Joi.number().min(0).max(1_000_000).required();
const unique = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => a[key] === b[key];

export const vmCatalogueSchema = Joi.object<VmCatalogue, true>({
    version: Joi.string().pattern(/^[\w.-]{1,32}$/).required(),
    currency: Joi.string().pattern(/^[A-Z]{3}$/).required(),
    sizes: Joi.array().items(Joi.object<VmSize, true>({
        slug: slug.required(),
        vcpus: Joi.number().integer().min(1).max(512).required(),
        memoryMiB: Joi.number().integer().min(256).max(16 * 1024 * 1024).required(),
        diskGiB: Joi.number().integer().min(1).max(65_536).required(),
        pricePerHour: money,
        pricePerMonth: money
    })).min(1).unique(unique('slug')).required(),
    images: Joi.array().items(Joi.object({ slug: slug.required(), name: Joi.string().min(1).max(100).required() })).min(1).unique(unique('slug')).required(),
    regions: Joi.array().items(slug).min(1).unique().required(),
    extraDiskPerGiBMonth: money,
    maxDiskGiB: Joi.number().integer().min(1).max(65_536).required()
});
