import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import type { Page } from '../api';

const BLOCK = 100;
const OVERSCAN = 8;

export interface VirtualGridProps<T> {
  /** Changing it drops every loaded row and starts again from the top (new filters). */
  resetKey: string;
  /** Bumping it reloads the loaded rows in place (live updates), keeping the scroll position. */
  refreshKey?: number;
  fetchPage(offset: number, limit: number, signal: AbortSignal): Promise<Page<T>>;
  rowHeight: number;
  /** CSS grid-template-columns shared by the header and the rows. */
  columns: string;
  header: ReactNode;
  renderRow(item: T): ReactNode;
  rowKey(item: T): string;
  onRowClick?(item: T): void;
  empty?: ReactNode;
  label: string;
}

/**
 * A virtualised table over a server-paged list: only the rows in view (plus a margin) are in the DOM,
 * and rows are fetched from the API in blocks of 100 as they scroll into view.
 */
export function VirtualGrid<T>(props: VirtualGridProps<T>) {
  const { resetKey, refreshKey, fetchPage, rowHeight } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [blocks, setBlocks] = useState<Map<number, T[]>>(new Map());
  const [range, setRange] = useState({ first: 0, last: 30 });
  const [error, setError] = useState<string | null>(null);
  const loading = useRef(new Set<number>());
  const generation = useRef(0);

  const load = useCallback(
    async (block: number, gen: number, replace: boolean) => {
      if (loading.current.has(block) && !replace) return;
      loading.current.add(block);
      const ctl = new AbortController();
      try {
        const page = await fetchPage(block * BLOCK, BLOCK, ctl.signal);
        if (gen !== generation.current) return;
        setTotal(page.total);
        setBlocks((prev) => new Map(prev).set(block, page.items));
        setError(null);
      } catch (err) {
        if (gen === generation.current) setError((err as Error).message);
      } finally {
        loading.current.delete(block);
      }
    },
    [fetchPage],
  );

  // New filters: start over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resetKey is the trigger
  useEffect(() => {
    generation.current++;
    loading.current.clear();
    setBlocks(new Map());
    setTotal(null);
    if (scroller.current) scroller.current.scrollTop = 0;
    setRange({ first: 0, last: 30 });
    void load(0, generation.current, true);
  }, [resetKey]);

  // Live update: reload the blocks in view.
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the trigger
  useEffect(() => {
    if (!refreshKey) return;
    const from = Math.floor(range.first / BLOCK);
    const to = Math.floor(range.last / BLOCK);
    for (let b = from; b <= to; b++) void load(b, generation.current, true);
  }, [refreshKey]);

  useEffect(() => {
    if (total === null) return;
    const from = Math.floor(range.first / BLOCK);
    const to = Math.floor(Math.min(range.last, Math.max(0, total - 1)) / BLOCK);
    for (let b = from; b <= to; b++) if (!blocks.has(b)) void load(b, generation.current, false);
  }, [range, total, blocks, load]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const first = Math.max(0, Math.floor(el.scrollTop / rowHeight) - OVERSCAN);
    const last = Math.ceil((el.scrollTop + el.clientHeight) / rowHeight) + OVERSCAN;
    setRange((r) => (r.first === first && r.last === last ? r : { first, last }));
  };

  const rows: ReactNode[] = [];
  if (total !== null) {
    const last = Math.min(range.last, total - 1);
    for (let i = range.first; i <= last; i++) {
      const item = blocks.get(Math.floor(i / BLOCK))?.[i % BLOCK];
      const style = { top: i * rowHeight, height: rowHeight, gridTemplateColumns: props.columns };
      if (!item) {
        rows.push(<div key={`p${i}`} className="vrow placeholder" style={style} />);
        continue;
      }
      rows.push(
        // biome-ignore lint/a11y/useSemanticElements: a virtualised grid positions div rows absolutely
        <div
          key={props.rowKey(item)}
          role="row"
          tabIndex={0}
          className={`vrow${props.onRowClick ? ' clickable' : ''}`}
          style={style}
          onClick={() => props.onRowClick?.(item)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') props.onRowClick?.(item);
          }}
        >
          {props.renderRow(item)}
        </div>,
      );
    }
  }

  return (
    // biome-ignore lint/a11y/useSemanticElements: virtualised rows are absolutely positioned divs, not table rows
    <div className="vgrid" role="grid" aria-label={props.label} aria-rowcount={total ?? undefined}>
      {/* biome-ignore lint/a11y/useSemanticElements: the header row lines up with the virtualised div rows */}
      <div className="vhead" role="row" tabIndex={-1} style={{ gridTemplateColumns: props.columns }}>
        {props.header}
      </div>
      {error && <div className="error">{error}</div>}
      <div className="vbody" ref={scroller} onScroll={onScroll}>
        {total === 0 ? (
          <div className="empty">{props.empty ?? 'Nothing matches.'}</div>
        ) : (
          <div style={{ height: (total ?? 0) * rowHeight, position: 'relative' }}>{rows}</div>
        )}
      </div>
      <div className="vfoot">{total === null ? 'loading…' : `${total.toLocaleString()} rows`}</div>
    </div>
  );
}
