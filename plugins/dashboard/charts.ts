// Metric series drawn as SVG on the server: the page needs no script. A series the API says is `unavailable` is drawn
// as a labelled empty frame, never as a line at zero; a measured series with no points says so too. Every text in
// the SVG is escaped here, since the template prints it as it is.

export interface Series {
    metric: string;
    unit: string;
    step: number;
    startDate: string;
    endDate: string;
    source: string;                                             // `measured`, or `unavailable` when nothing observes it
    series: Array<{ timestamp: string; value: number | null }>;
}

export interface Chart {
    title: string;
    svg: string;                                                // markup built here, escaped
    summary: string;                                            // what the chart shows, in words (its text alternative)
    unavailable: boolean;
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD = { top: 16, right: 16, bottom: 28, left: 64 };

export function escapeXml(text: string): string {
    return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' }[c]!));
}

const TITLES: Record<string, string> = {
    'request-count': 'Requests', 'response-duration': 'Response duration', 'cpu-usage': 'CPU', 'memory-usage': 'Memory',
    'bandwidth': 'Bandwidth', 'unique-visitors': 'Unique visitors', 'network-in': 'Network in', 'network-out': 'Network out', 'disk-usage': 'Disk'
};

export function metricTitle(metric: string): string {
    return TITLES[metric] ?? metric;
}

/** A value as a person reads it, in the series' unit. */
export function formatValue(value: number, unit: string): string {
    const rounded = Math.abs(value) >= 100 ? Math.round(value).toString() : Number(value.toPrecision(3)).toString();
    if (unit === 'bytes') {
        const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
        let scaled = value;
        let index = 0;
        while (Math.abs(scaled) >= 1024 && index < units.length - 1) {
            scaled /= 1024;
            ++index;
        }

        return `${Number(scaled.toPrecision(3))} ${units[index]}`;
    }

    return unit === 'percent' ? `${rounded}%` : unit === 'ms' ? `${rounded} ms` : `${rounded} ${unit}`;
}

const hhmm = (iso: string) => new Date(iso).toISOString().slice(11, 16);

export function chart(data: Series): Chart {
    const title = metricTitle(data.metric);
    const label = `${title} (${data.unit}), ${hhmm(data.startDate)} to ${hhmm(data.endDate)} UTC`;
    const frame = `<rect class="chart-frame" x="${PAD.left}" y="${PAD.top}" width="${WIDTH - PAD.left - PAD.right}" height="${HEIGHT - PAD.top - PAD.bottom}" />`;
    const open = `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeXml(label)}" xmlns="http://www.w3.org/2000/svg">`;
    const points = data.series.filter((point) => typeof point.value === 'number' && Number.isFinite(point.value)) as Array<{ timestamp: string; value: number }>;

    if (data.source !== 'measured' || points.length === 0) {
        const unavailable = data.source !== 'measured';
        const message = unavailable ? 'Unavailable: nothing measures this here' : 'No data in this range';
        return {
            title,
            unavailable,
            summary: unavailable
                ? `${title} is unavailable: nothing measures it for this resource (source: ${data.source}). No value is shown rather than a zero.`
                : `${title}: no points were measured between ${hhmm(data.startDate)} and ${hhmm(data.endDate)} UTC.`,
            svg: `${open}${frame}<line class="chart-unavailable" x1="${PAD.left}" y1="${PAD.top}" x2="${WIDTH - PAD.right}" y2="${HEIGHT - PAD.bottom}" />` +
                `<text class="chart-message" x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">${escapeXml(message)}</text></svg>`
        };
    }

    const start = Date.parse(data.startDate);
    const end = Math.max(Date.parse(data.endDate), start + 1);
    const max = Math.max(...points.map((point) => point.value));
    const top = max > 0 ? max : 1;
    const x = (iso: string) => PAD.left + (Date.parse(iso) - start) / (end - start) * (WIDTH - PAD.left - PAD.right);
    const y = (value: number) => HEIGHT - PAD.bottom - value / top * (HEIGHT - PAD.top - PAD.bottom);
    const path = points.map((point, index) => `${index ? 'L' : 'M'}${x(point.timestamp).toFixed(1)} ${y(point.value).toFixed(1)}`).join(' ');
    const dots = points.length <= 60 ? points.map((point) => `<circle class="chart-point" cx="${x(point.timestamp).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="2.5" />`).join('') : '';
    const axis = `<text class="chart-axis" x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${escapeXml(formatValue(top, data.unit))}</text>` +
        `<text class="chart-axis" x="${PAD.left - 6}" y="${HEIGHT - PAD.bottom}" text-anchor="end">0</text>` +
        `<text class="chart-axis" x="${PAD.left}" y="${HEIGHT - 8}">${hhmm(data.startDate)}</text>` +
        `<text class="chart-axis" x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" text-anchor="end">${hhmm(data.endDate)} UTC</text>`;
    const last = points[points.length - 1];
    return {
        title,
        unavailable: false,
        summary: `${title}: ${points.length} points, highest ${formatValue(max, data.unit)}, latest ${formatValue(last.value, data.unit)} at ${hhmm(last.timestamp)} UTC.`,
        svg: `${open}${frame}${axis}<path class="chart-line" d="${path}" />${dots}</svg>`
    };
}
