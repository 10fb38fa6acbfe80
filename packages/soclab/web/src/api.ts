import { useCallback, useEffect, useRef, useState } from 'react';

/** An API error as the server reports it: status, stable code, message and the field paths at fault. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'soclab.console.token';

/** The bearer token lives in this tab's session storage only (never in the URL or a cookie). */
export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

async function request(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = tokenStore.get();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) {
    let payload: { code?: string; message?: string; issues?: { path: string; message: string }[] } = {};
    try {
      payload = await res.json();
    } catch {
      // not JSON
    }
    if (res.status === 401) window.dispatchEvent(new Event('soclab:unauthenticated'));
    throw new ApiFailure(res.status, payload.code ?? 'error', payload.message ?? res.statusText, payload.issues ?? []);
  }
  return res;
}

export const api = {
  get: async <T>(path: string): Promise<T> => (await request('GET', path)).json() as Promise<T>,
  post: async <T>(path: string, body: unknown): Promise<T> => (await request('POST', path, body)).json() as Promise<T>,
  /** A document fetched with the token and opened in a new tab (reports need the Authorization header). */
  open: async (path: string): Promise<void> => {
    const blob = await (await request('GET', path)).blob();
    const url = URL.createObjectURL(blob);
    window.open(url, '_blank', 'noopener');
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  },
};

export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | Error | null;
  loading: boolean;
  reload: () => void;
}

/** GET `path` (null = nothing to load), again every `everyMs` while `live` is true. */
export function useApi<T>(path: string | null, options: { everyMs?: number; live?: boolean } = {}): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiFailure | Error | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  const current = useRef(path);
  current.current = path;
  const reload = useCallback(() => setTick((t) => t + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: tick forces a reload
  useEffect(() => {
    if (path === null) return;
    let cancelled = false;
    setLoading(true);
    api
      .get<T>(path)
      .then((value) => {
        if (cancelled || current.current !== path) return;
        setData(value);
        setError(null);
      })
      .catch((e: Error) => {
        if (!cancelled) setError(e);
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, [path, tick]);

  const live = options.live ?? false;
  const every = options.everyMs ?? 1500;
  useEffect(() => {
    if (!live || path === null) return;
    const timer = setInterval(() => setTick((t) => t + 1), every);
    return () => clearInterval(timer);
  }, [live, every, path]);

  return { data, error, loading, reload };
}
