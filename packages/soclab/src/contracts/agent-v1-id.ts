/**
 * The id of the soclab.agent.v1 wire contract, apart from its schemas (contracts/agent-v1.ts) so that the http
 * provider can name the contract in every request without building the schemas until it checks a reply.
 */
export const AGENT_CONTRACT_ID = 'soclab.agent.v1';
