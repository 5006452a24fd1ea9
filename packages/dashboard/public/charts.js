// Bar charts drawn with uPlot (served from node_modules by the dashboard's handler).
import uPlot from './vendor/uPlot.esm.js';

const BAR = '#1d4ed8';
const AXIS = '#1f2937';
const GRID = '#e5e7eb';
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

const live = new Set();

/** Destroys the charts of the previous view (and stops watching their size). */
export function destroyCharts() {
  for (const chart of live) chart.destroy();
  live.clear();
}

/**
 * A bar chart of `values` over the categories `labels` in `container`, resized with it.
 * `rotateLabels` tilts long category names (methods) so they fit on a narrow screen.
 */
export function barChart(container, { labels, values, seriesLabel, height = 220, rotateLabels = false }) {
  const xs = labels.map((_, i) => i);
  const longest = labels.reduce((n, label) => Math.max(n, label.length), 0);
  const width = () => Math.max(240, Math.floor(container.clientWidth));
  // Show every label when they fit, else every n-th (about 56 px per horizontal label).
  const splits = (u) => {
    const room = u.bbox.width / devicePixelRatio / (rotateLabels ? 22 : 56);
    const step = Math.max(1, Math.ceil(xs.length / Math.max(1, room)));
    return xs.filter((i) => i % step === 0);
  };
  const plot = new uPlot(
    {
      width: width(),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: {
        x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        {
          stroke: AXIS,
          grid: { show: false },
          ticks: { show: false },
          splits,
          values: (_u, ticks) => ticks.map((i) => labels[i] ?? ''),
          rotate: rotateLabels ? 40 : 0,
          size: rotateLabels ? Math.min(130, 16 + longest * 5.2) : 32,
        },
        {
          stroke: AXIS,
          grid: { stroke: GRID, width: 1 },
          size: 52,
          values: (_u, ticks) => ticks.map((v) => compact.format(v)),
        },
      ],
      series: [
        {},
        {
          label: seriesLabel,
          fill: BAR,
          stroke: BAR,
          width: 0,
          paths: uPlot.paths.bars({ size: [0.7, 44] }),
          points: { show: false },
        },
      ],
    },
    [xs, values],
    container,
  );
  const observer = new ResizeObserver(() => {
    if (Math.abs(plot.width - width()) > 1) plot.setSize({ width: width(), height });
  });
  observer.observe(container);
  const chart = {
    destroy() {
      observer.disconnect();
      plot.destroy();
    },
  };
  live.add(chart);
  return chart;
}
