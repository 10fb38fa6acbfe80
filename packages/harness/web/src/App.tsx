import { CaseComparePage } from './pages/CaseComparePage';
import { CasePage } from './pages/CasePage';
import { ComparePage } from './pages/ComparePage';
import { HistoryPage } from './pages/HistoryPage';
import { RunList } from './pages/RunList';
import { RunPage } from './pages/RunPage';
import { useRoute } from './router';

function Page() {
  const { segments: s, query } = useRoute();
  if (s[0] === 'runs' && s[1] && s[2] === 'cases' && s[3] !== undefined) {
    return <CasePage key={`${s[1]}/${s[3]}/${s[4]}`} runId={s[1]} testId={s[3]} repeat={Number(s[4] ?? 0)} />;
  }
  if (s[0] === 'runs' && s[1]) return <RunPage key={s[1]} id={s[1]} query={query} />;
  if (s[0] === 'compare' && s[1] && s[2] && s[3] === 'cases' && s[4] !== undefined) {
    return <CaseComparePage baseline={s[1]} candidate={s[2]} testId={s[4]} repeat={Number(s[5] ?? 0)} />;
  }
  if (s[0] === 'compare' && s[1] && s[2]) return <ComparePage baseline={s[1]} candidate={s[2]} query={query} />;
  if (s[0] === 'history' && s[1]) return <HistoryPage suite={s[1]} metric={query.get('metric')} />;
  return <RunList suite={query.get('suite')} />;
}

export function App() {
  return (
    <>
      <header className="topbar">
        <a href="#/" className="brand">
          harness <span>view</span>
        </a>
        <nav>
          <a href="#/">Runs</a>
        </nav>
      </header>
      <main>
        <Page />
      </main>
    </>
  );
}
