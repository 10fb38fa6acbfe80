import { useEffect, useState } from 'react';

/**
 * The hash route of both web apps (the harness viewer and the soclab console): `#/runs/<id>?status=failed` ->
 * segments ['runs', id] and its query. Hash routing needs no server fallback.
 */
export interface Route {
  segments: string[];
  query: URLSearchParams;
}

function current(): Route {
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
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** `#/a/b?x=1` from segments (encoded) and optional query. */
export function href(segments: readonly (string | number)[], query?: Record<string, string | undefined>): string {
  const path = segments.map((s) => encodeURIComponent(String(s))).join('/');
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) search.set(k, v);
  const q = search.toString();
  return `#/${path}${q ? `?${q}` : ''}`;
}

/** Change the query of the current route without adding a history entry per keystroke. */
export function replaceQuery(segments: readonly string[], query: Record<string, string | undefined>): void {
  const target = href(segments, query);
  if (window.location.hash !== target) window.history.replaceState(null, '', target);
}

/** Navigate to a route made by `href` (adds a history entry). */
export const go = (target: string): void => {
  window.location.hash = target;
};
