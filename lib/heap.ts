import * as V8 from 'node:v8';

// How far V8 lets the old generation grow past what survived its last full collection before it collects again.
// V8 picks that factor itself, between 1.1 and 4, from how fast it collects: under a steady load of requests it
// settles near 4, and a process whose live objects fill 60 MB held 330 to 360 MB of memory (docs/performance.md). A
// fixed factor of 1.5 held the same process at 196 to 199 MB. `npm start` and stdio mode apply the operator's
// HEAP_GROWING_PERCENT (default 50) here, once at boot; a server embedded in another program leaves it to that program.

/** Sets V8's heap growing factor to `1 + percent / 100` for this process; 0 leaves V8's own choice. */
export function applyHeapGrowth(percent: number): void {
    if (percent > 0) {
        V8.setFlagsFromString(`--heap-growing-percent=${percent}`);
    }
}
