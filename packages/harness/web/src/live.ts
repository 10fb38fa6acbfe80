import { useEffect, useRef } from 'react';

/** A change the server saw in the run index (a run grew, finished, or appeared). */
export interface LiveEvent {
  type: 'run';
  id: string;
  state: string;
  added: number;
  created: boolean;
}

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;

function ensureSource(): void {
  if (source || typeof EventSource === 'undefined') return;
  source = new EventSource('api/events');
  source.addEventListener('run', (msg) => {
    const event = JSON.parse((msg as MessageEvent<string>).data) as LiveEvent;
    for (const l of listeners) l(event);
  });
}

/** Call `onEvent` for every live update (one shared EventSource; the browser reconnects on its own). */
export function useLiveEvents(onEvent: Listener): void {
  const ref = useRef(onEvent);
  ref.current = onEvent;
  useEffect(() => {
    ensureSource();
    const l: Listener = (e) => ref.current(e);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
}
