/** Small hand-drawn SVG charts: a chart library would cost more JavaScript than the whole console. */

export interface Bar {
  label: string;
  value: number;
}

/** Horizontal bars with their values, readable by screen readers as a list. */
export function BarChart({ title, bars, unit = '' }: { title: string; bars: Bar[]; unit?: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const rowHeight = 26;
  const width = 520;
  const labelWidth = 170;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg role="img" aria-label={`${title}: ${bars.map((bar) => `${bar.label} ${bar.value}${unit}`).join(', ')}`} width="100%" viewBox={`0 0 ${width} ${Math.max(1, bars.length) * rowHeight}`}>
        {bars.map((bar, index) => {
          const barWidth = ((width - labelWidth - 70) * bar.value) / max;
          const y = index * rowHeight;
          return (
            <g key={bar.label} transform={`translate(0 ${y})`}>
              <text x={0} y={17} fontSize={13} fill="#1f2933">
                {bar.label.length > 24 ? `${bar.label.slice(0, 23)}…` : bar.label}
              </text>
              <rect x={labelWidth} y={5} width={Math.max(1, barWidth)} height={16} fill="#2456a6" rx={2} />
              <text x={labelWidth + barWidth + 6} y={17} fontSize={13} fill="#1f2933">
                {bar.value.toLocaleString()}
                {unit}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** A progress meter of used against included, e.g. the period's credits. */
export function Meter({ label, used, included, unit }: { label: string; used: number; included: number; unit: string }) {
  const percent = included > 0 ? Math.min(100, (used / included) * 100) : 0;
  return (
    <div className="meter">
      <div className="meter-label">
        <span>{label}</span>
        <span>
          {used.toLocaleString()} of {included.toLocaleString()} {unit}
        </span>
      </div>
      <div role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(percent)} className="meter-track">
        <div className="meter-fill" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** A line over time (e.g. an emotional arc), values in [min, max]; `xMax` ends the axis (e.g. the video's length), else the last point does. */
export function LineChart({ title, points, min = -1, max = 1, xMax }: { title: string; points: { x: number; y: number; label?: string }[]; min?: number; max?: number; xMax?: number }) {
  const width = 520;
  const height = 160;
  const xs = points.map((point) => point.x);
  const x0 = Math.min(0, ...xs);
  const x1 = Math.max(1, xMax ?? 0, ...xs);
  const px = (x: number) => 30 + ((x - x0) / (x1 - x0)) * (width - 40);
  const py = (y: number) => 10 + ((max - y) / (max - min)) * (height - 30);
  const path = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${px(point.x).toFixed(1)},${py(point.y).toFixed(1)}`).join(' ');
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg role="img" aria-label={`${title}: ${points.map((point) => `${point.label ?? point.x}: ${point.y.toFixed(2)}`).join(', ')}`} width="100%" viewBox={`0 0 ${width} ${height}`}>
        <line x1={30} x2={width - 10} y1={py(0)} y2={py(0)} stroke="#9aa5b1" strokeDasharray="4 4" />
        <path d={path} fill="none" stroke="#2456a6" strokeWidth={2.5} />
        {points.map((point) => (
          <circle key={point.x} cx={px(point.x)} cy={py(point.y)} r={3.5} fill="#2456a6" />
        ))}
      </svg>
    </figure>
  );
}
