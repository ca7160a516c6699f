// The shared graph (spec §2 "Shared UI"): a small SVG bar chart, one bar per entry, with the entries
// as a table for assistive technology (the picture is hidden from it). No chart library.
import { useId } from 'react';

export type Bar = { key: string; label: string; value: number };

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
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const width = Math.max(1, bars.length) * 10;
  const height = 60;
  return (
    <figure aria-labelledby={titleId} data-testid={testId}>
      <figcaption id={titleId} className="text-lg font-semibold">
        {title}
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        aria-hidden="true"
        focusable="false"
        className="mt-3 h-32 w-full"
      >
        <line x1="0" y1={height - 0.25} x2={width} y2={height - 0.25} className="stroke-slate-400" strokeWidth="0.5" />
        {bars.map((bar, index) => {
          const barHeight = (bar.value / max) * (height - 4);
          return (
            <rect
              key={bar.key}
              x={index * 10 + 1.5}
              y={height - barHeight}
              width={7}
              height={barHeight}
              className="fill-brand"
              rx="1"
            />
          );
        })}
      </svg>
      {axisLabels && (
        <div aria-hidden="true" className="flex justify-between text-xs text-slate-700">
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
