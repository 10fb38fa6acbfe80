import type { Command } from '@commander-js/extra-typings';
import { printJson } from '../common.js';

/** `soclab version`: the package version; `--all` adds the versions that a scorecard records. */
export function register(program: Command): void {
  program
    .command('version')
    .description(
      'print the soclab version (--all: also the scoring profile, scorecard, policy, fixture and prompt versions)',
    )
    .option('--all', 'also print the component versions a scorecard records')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { soclabVersion } = await import('../../version.js');
      const version = soclabVersion();
      if (!opts.all && !opts.json) {
        process.stdout.write(`${version}\n`);
        return;
      }
      const { DEFAULT_PROFILE } = await import('../../scoring/profile.js');
      const { SCORECARD_VERSION } = await import('../../reports/scorecard.js');
      const { PROMPT_VERSION } = await import('../../orchestrator/prompts.js');
      const { loadCorpus } = await import('../../scenarios/loader.js');
      const { loadPolicyEngine } = await import('../../control/policy/index.js');
      const corpus = loadCorpus();
      const { loadFixture } = await import('../../simulator/fixture.js');
      const fixture = loadFixture(corpus.incident.fixture);
      const versions = {
        soclab: version,
        scoring_profile: `${DEFAULT_PROFILE.name} ${DEFAULT_PROFILE.version}`,
        scorecard: SCORECARD_VERSION,
        policy: loadPolicyEngine().engine.version,
        fixture: `${fixture.name} ${fixture.version}`,
        prompt: PROMPT_VERSION,
        incident: `${corpus.incident.id} ${corpus.incident.version}`,
        node: process.version,
      };
      if (opts.json) printJson(versions);
      else for (const [k, v] of Object.entries(versions)) process.stdout.write(`${k.padEnd(16)} ${v}\n`);
    });
}
