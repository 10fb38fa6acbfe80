import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from '@aeh/harness/directories';
import { renderHtml } from './render.js';
import { type Scorecard, scorecardJson } from './scorecard.js';
import { renderText } from './text.js';

export interface WrittenReports {
  executive: string;
  technical: string;
  scorecard: string;
  summary: string;
}

/**
 * Write a scorecard and the reports rendered from it into `dir`: `<prefix>executive.html`,
 * `<prefix>technical.html`, `<prefix>scorecard.json` and `<prefix>summary.txt`. The PDF is made on demand
 * (`soclab report <scorecard.json>`), since it needs Chromium.
 */
export function writeReports(scorecard: Scorecard, dir: string, prefix = ''): WrittenReports {
  makeDirectory(dir);
  const paths: WrittenReports = {
    executive: join(dir, `${prefix}executive.html`),
    technical: join(dir, `${prefix}technical.html`),
    scorecard: join(dir, `${prefix}scorecard.json`),
    summary: join(dir, `${prefix}summary.txt`),
  };
  writeFileSync(paths.scorecard, scorecardJson(scorecard));
  writeFileSync(paths.executive, renderHtml(scorecard, 'executive'));
  writeFileSync(paths.technical, renderHtml(scorecard, 'technical'));
  writeFileSync(paths.summary, renderText(scorecard));
  return paths;
}
