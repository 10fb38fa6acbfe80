/** @jsxRuntime automatic */
/** @jsxImportSource react */
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';
import { ExecutiveReport } from './executive.js';
import { OnePageSummary } from './onepage.js';
import type { Scorecard } from './scorecard.js';
import { REPORT_CSS } from './styles.js';
import { TechnicalReport } from './technical.js';

export type HtmlReportKind = 'executive' | 'technical' | 'onepage';

const TITLES: Readonly<Record<HtmlReportKind, string>> = {
  executive: 'Should this agent get operational authority?',
  technical: 'Technical evidence package',
  onepage: 'Executive assurance summary',
};

function page(title: string, body: ReactElement): ReactElement {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta
          httpEquiv="Content-Security-Policy"
          content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"
        />
        <title>{title}</title>
        <style />
      </head>
      <body>{body}</body>
    </html>
  );
}

/**
 * Render a report from a scorecard. React escapes every piece of text (agent output included), the page has a
 * script-free content security policy, and the finished document is canary-redacted as a whole. The output
 * depends only on the scorecard, so the same scorecard gives the same bytes.
 */
export function renderHtml(scorecard: Scorecard, kind: HtmlReportKind): string {
  const body =
    kind === 'executive' ? (
      <ExecutiveReport s={scorecard} />
    ) : kind === 'technical' ? (
      <TechnicalReport s={scorecard} />
    ) : (
      <OnePageSummary s={scorecard} />
    );
  const title = `${TITLES[kind]}: ${scorecard.campaign.label} (${scorecard.campaign.campaign_id})`;
  // The stylesheet is this package's static text (never data from a run), spliced into the empty style element.
  const markup = renderToStaticMarkup(page(title, body)).replace('<style></style>', `<style>${REPORT_CSS}</style>`);
  const html = `<!DOCTYPE html>${markup}\n`;
  return redactText(html, DEFAULT_CANARY_PATTERNS);
}
