import { useEffect, useState } from 'react';

/** The console's location: `#/campaigns/<id>` -> ['campaigns', id]. Hash routing needs no server fallback. */
export interface Route {
  segments: string[];
  query: URLSearchParams;
}

function read(): Route {
  const raw = window.location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?');
  return {
    segments: path
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s)),
    query: new URLSearchParams(search),
  };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** `#/a/b?x=1` from path segments (encoded) and an optional query. */
export function link(segments: readonly (string | number)[], query?: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) search.set(k, v);
  const q = search.toString();
  return `#/${segments.map((s) => encodeURIComponent(String(s))).join('/')}${q ? `?${q}` : ''}`;
}

export const go = (target: string): void => {
  window.location.hash = target;
};
