// The shared graph (spec §2 "Shared UI"): a small SVG bar chart, one bar per entry, on a scale with
// its values at the side (0, half, top) and each bar's value above it, with the entries as a table for
// assistive technology (the picture is hidden from it). No chart library.
import { useId } from 'react';

export type Bar = { key: string; label: string; value: number };

/** The top of the scale: a round number at or above the largest value, never under 4, whose half is
 * whole (4, 10, 20, 40, 100, …). One sign-in then stands a quarter high, not as tall as the graph. */
export function scaleTop(largest: number): number {
  for (let power = 1; ; power *= 10) {
    for (const step of [4, 10, 20, 40]) {
      if (step * power >= largest && (step * power) % 2 === 0) return step * power;
    }
  }
}

/** Above this many bars, their values do not fit above them: the scale and the table say them. */
const LABELLED_BARS = 31;

export function BarChart({
  title,
  bars,
  columns,
  axisLabels,
  testId,
}: {
  title: string;
  bars: readonly Bar[];
  /** The table's column headers: what an entry is, and what its value counts. */
  columns: { label: string; value: string };
  /** Words under the bars, at their ends (the first and last entry's label, shorter). */
  axisLabels?: { start: string; end: string };
  testId?: string;
}) {
  const titleId = useId();
  const top = scaleTop(Math.max(0, ...bars.map((bar) => bar.value)));
  const width = Math.max(1, bars.length) * 10;
  const height = 60;
  const labelled = bars.length <= LABELLED_BARS;
  return (
    <figure aria-labelledby={titleId} data-testid={testId}>
      <figcaption id={titleId} className="text-lg font-semibold">
        {title}
      </figcaption>
      <div aria-hidden="true" className="mt-5 flex gap-2" data-testid={testId && `${testId}-picture`}>
        {/* The scale: its top, its half and zero, level with the lines across the bars. */}
        <div className="relative h-32 w-8 shrink-0 text-right text-xs text-slate-700" data-testid="chart-scale">
          <span className="absolute right-0 top-0 -translate-y-1/2">{top}</span>
          <span className="absolute right-0 top-1/2 -translate-y-1/2">{top / 2}</span>
          <span className="absolute bottom-0 right-0 translate-y-1/2">0</span>
        </div>
        <div className="relative h-32 min-w-0 flex-1">
          <svg
            viewBox={`0 0 ${width} ${height}`}
            preserveAspectRatio="none"
            focusable="false"
            className="absolute inset-0 h-full w-full"
          >
            {[0, height / 2].map((y) => (
              <line
                key={y}
                x1="0"
                y1={y + 0.25}
                x2={width}
                y2={y + 0.25}
                className="stroke-slate-300"
                strokeWidth="0.5"
                strokeDasharray="2 2"
                vectorEffect="non-scaling-stroke"
              />
            ))}
            <line
              x1="0"
              y1={height - 0.25}
              x2={width}
              y2={height - 0.25}
              className="stroke-slate-500"
              strokeWidth="0.5"
              vectorEffect="non-scaling-stroke"
            />
            {bars.map((bar, index) => {
              const barHeight = (bar.value / top) * height;
              return (
                <rect
                  key={bar.key}
                  x={index * 10 + 1.5}
                  y={height - barHeight}
                  width={7}
                  height={barHeight}
                  className="fill-brand"
                />
              );
            })}
          </svg>
          {/* Each bar's value above it, in text that the stretched picture does not distort. */}
          {labelled &&
            bars.map((bar, index) =>
              bar.value > 0 ? (
                <span
                  key={bar.key}
                  data-testid="chart-value"
                  className="absolute -translate-x-1/2 text-xs leading-none text-slate-800"
                  style={{
                    left: `${((index + 0.5) / bars.length) * 100}%`,
                    bottom: `calc(${(bar.value / top) * 100}% + 2px)`,
                  }}
                >
                  {bar.value}
                </span>
              ) : null,
            )}
        </div>
      </div>
      {axisLabels && (
        <div aria-hidden="true" className="ml-10 mt-1 flex justify-between text-xs text-slate-700">
          <span>{axisLabels.start}</span>
          <span>{axisLabels.end}</span>
        </div>
      )}
      {/* A table ignores the width that hides it: its box does not. */}
      <div className="sr-only">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{columns.label}</th>
              <th scope="col">{columns.value}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={bar.key}>
                <th scope="row">{bar.label}</th>
                <td>{bar.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
