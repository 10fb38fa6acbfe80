import {
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Filler, Tooltip, Legend);

export interface LinePoint {
  label: string;
  value: number;
  lower: number | null;
  upper: number | null;
}

/** A metric over runs with its confidence band (Chart.js on a canvas). */
export function LineChart({ points, metric }: { points: LinePoint[]; metric: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const hasBand = points.some((p) => p.lower !== null && p.upper !== null);
    const chart = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels: points.map((p) => p.label),
        datasets: [
          ...(hasBand
            ? [
                {
                  label: 'upper',
                  data: points.map((p) => p.upper ?? p.value),
                  borderWidth: 0,
                  pointRadius: 0,
                  fill: '+1',
                  backgroundColor: 'rgba(59,130,246,0.15)',
                },
                {
                  label: 'lower',
                  data: points.map((p) => p.lower ?? p.value),
                  borderWidth: 0,
                  pointRadius: 0,
                  fill: false,
                },
              ]
            : []),
          {
            label: metric,
            data: points.map((p) => p.value),
            borderColor: '#2563eb',
            backgroundColor: '#2563eb',
            tension: 0.2,
          },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { labels: { filter: (item) => item.text === metric } },
          tooltip: { filter: (item) => item.dataset.label === metric },
        },
      },
    });
    return () => chart.destroy();
  }, [points, metric]);
  return (
    <div className="chart">
      <canvas ref={canvas} aria-label={`${metric} over runs`} role="img" />
    </div>
  );
}
