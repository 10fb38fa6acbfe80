import { type ComponentType, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

/** Render a web app's root component into `#root`: the entry of both the harness viewer and the soclab console. */
export function mount(App: ComponentType): void {
  const root = document.getElementById('root');
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
