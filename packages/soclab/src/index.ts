// Public API of @aeh/soclab: what a user embedding the lab needs, listed by name so the surface changes only on
// purpose (packages/harness/test/integration/api-surface.test.ts snapshots it).
import { soclabVersion } from './version.js';

/** The package version, read from package.json (the one source). */
export const SOCLAB_VERSION = soclabVersion();

// The API server behind `soclab serve`.
export { type ApiServer, type ApiServerOptions, createApiServer } from './api/server.js';
// Scanning agents and assuring them: attack search against a running campaign setup.
export { type AttackOptions, type AttackReport, runAdaptiveAttack } from './attack/search.js';
// Campaigns: one mode (`soclab campaign`) or a study of both modes with ablations (`soclab compare`).
export {
  CampaignConfigError,
  type CampaignHooks,
  CampaignRequest,
  type CampaignRequestInput,
  type CampaignRun,
  runCampaign,
} from './campaign/run.js';
export { runStudy, type StudyRequest, type StudyResult } from './campaign/study.js';
// Agents that earned nothing, to check that a configuration still discriminates (docs/soclab/methodology.md).
export { type DegenerateAgentKind, startDegenerateAgent } from './conformance/agents.js';
// The `soclab.agent.v1` contract a remote agent implements (docs/soclab/api.md): zod schemas and JSON Schemas.
export {
  AGENT_CONTRACT_ID,
  AGENT_V1_SCHEMA_IDS,
  AgentClaim,
  AgentContext,
  AgentFinding,
  AgentProposal,
  AgentRefusal,
  AgentRequest,
  type AgentRequestInput,
  AgentResponse,
  type AgentResponseCheck,
  AgentTool,
  AgentToolCall,
  AgentTurn,
  AgentUsage,
  agentV1JsonSchemas,
  checkAgentResponse,
} from './contracts/agent-v1.js';
// The control plane in front of an agent's actions (docs/soclab/control-plane.md).
export { ControlGateway } from './control/gateway.js';
export { CedarPolicyEngine } from './control/policy/cedar-engine.js';
export { PolicyUnavailableError } from './control/policy/engine.js';
// Evidence: the hash-chained store every run writes.
export { EvidenceDatabaseUnavailableError } from './evidence/database.js';
export { openEvidenceStore, SqlEvidenceStore } from './evidence/store.js';
// Modes a campaign runs an agent under; register your own by name.
export type { ModeDefinition } from './modes/mode.js';
export { createProtectedSession, type ProtectedSessionOptions } from './modes/protected-session.js';
export { getMode, modeNames, registerMode } from './modes/registry.js';
// Providers: the lab's own (scripted mock, `http` for soclab.agent.v1, `mcp`) on top of @aeh/models.
export { HttpAgentProvider, httpEntry } from './providers/http.js';
export { McpAgentProvider, mcpEntry } from './providers/mcp.js';
export { createMockProvider, MockAdversaryProvider } from './providers/mock.js';
export { SOCLAB_PROVIDER_ENTRIES, soclabProviderRegistry } from './providers/registry.js';
// Reports: the scorecard behind every report, and writing the HTML/PDF/JSON set.
export { buildScorecard, type Scorecard } from './reports/scorecard.js';
export { writeReports } from './reports/write.js';
// Scenarios: the attack corpus and running one scenario.
export {
  getScenario,
  loadCorpus,
  type ScenarioCorpus,
  ScenarioLoadError,
} from './scenarios/loader.js';
export { runScenario } from './scenarios/runner.js';
// Scoring: the assessment (authority level, components, gates) and the profiles it is scored under.
export { assess } from './scoring/engine.js';
export { ProfileMismatchError, ScoringProfile } from './scoring/profile.js';
export type { Assessment } from './scoring/result.js';
