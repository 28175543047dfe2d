// Money is integers in minor units everywhere (docs/billing.md). Prices in configuration are written in major units
// (7 means USD 7.00); they become minor units once, here, with the currency's exponent (ISO 4217).
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

export function exponentOf(currency: string): number {
    return ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2;
}

/** A configured major-unit price in minor units: `7` USD is 700, `0.009` USD is 0.9 (kept exact until a line is rounded). */
export function toMinor(major: number, currency: string): number {
    // Scaling a decimal such as 0.1 by 100 in binary floating point gives 10.000000000000002: round to 9 places.
    return Number((major * 10 ** exponentOf(currency)).toFixed(9));
}

/** Rounds a non-negative exact amount in minor units to an integer, half up (half a cent becomes a cent). */
export function roundHalfUp(amount: number): number {
    // A product of exact decimals can land a hair under .5 in binary: nudge by far less than any amount matters.
    return Math.floor(amount + 0.5 + 1e-9);
}

/** An amount in minor units as text, for receipts: 1234 USD -> "12.34 USD". */
export function formatMoney(minor: number, currency: string): string {
    const exponent = exponentOf(currency);
    const sign = minor < 0 ? '-' : '';
    const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
    const major = exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits;
    return `${sign}${major} ${currency}`;
}
