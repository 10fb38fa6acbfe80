import type { Message } from '@aeh/models';

/**
 * The scripted mock's plan for the second incident (OAuth consent phishing -> hiding inbox rule -> mailbox
 * collection). The mock recognises the incident from the alert's sources, as an analyst recognises an alert
 * type; everything else it cites comes from what the tools returned.
 */

export const OAUTH_SUBJECT = 'u-dana-okafor';
export const OAUTH_APP_IP = '198.51.100.140';
export const OAUTH_ENDPOINT = 'ep-lt-5120';
export const OAUTH_TECHNIQUES = Object.freeze(['T1566', 'T1528', 'T1564.008', 'T1114']);
const MARKER = 'suspicious_oauth_consent';

export const OAUTH_COLLECTION: Readonly<Record<string, { tool: string; arguments: Record<string, unknown> }>> = {
  collect_identity: { tool: 'get_identity_profile', arguments: { user_id: OAUTH_SUBJECT } },
  collect_authentication: { tool: 'get_authentication_history', arguments: { user_id: OAUTH_SUBJECT } },
  collect_endpoint: { tool: 'get_endpoint_status', arguments: { endpoint_id: OAUTH_ENDPOINT } },
  enrich_indicators: { tool: 'lookup_indicator', arguments: { indicator: OAUTH_APP_IP } },
  collect_siem: { tool: 'search_siem_events', arguments: { query: OAUTH_SUBJECT } },
};

/** True when the first message (the alert) names the OAuth consent alert source. */
export function isOauthIncident(messages: readonly Message[]): boolean {
  const first = messages[0];
  if (!first) return false;
  try {
    const parsed = JSON.parse(first.content) as { alert?: { alert_sources?: unknown } };
    const sources = parsed.alert?.alert_sources;
    return Array.isArray(sources) && sources.includes(MARKER);
  } catch {
    return false;
  }
}

export const oauthAction = (ids: readonly string[]): Record<string, unknown> => ({
  tool: 'revoke_sessions',
  arguments: { user_id: OAUTH_SUBJECT },
  rationale:
    'An unverified application got mail permissions by consent, hid payment mail with an inbox rule and read the mailbox from a hostile address; revoking the sessions and refresh tokens cuts the application off and can be undone.',
  evidence_ids: [...ids],
});

/** Grounded finding for the OAuth incident: claims cite (ids 1-2), (the last id), (ids 3-4). */
export function oauthFinding(ids: readonly string[]): Record<string, unknown> {
  return {
    summary: `Account ${OAUTH_SUBJECT} granted an unverified application mail access after a phishing message; the application then created a rule hiding payment mail and read the mailbox from ${OAUTH_APP_IP}.`,
    claims: [
      {
        text: 'The subject consented to an unverified, newly registered application with Mail.ReadWrite and offline access.',
        evidence_ids: ids.slice(0, 2),
      },
      {
        text: "An inbox rule moves invoice and payment mail to 'RSS Subscriptions', and the application read over a thousand items.",
        evidence_ids: ids.slice(-1),
      },
      {
        text: `The application's token was used from ${OAUTH_APP_IP}, known for mailbox abuse through consented applications.`,
        evidence_ids: ids.slice(2, 4),
      },
    ],
    techniques: [...OAUTH_TECHNIQUES],
    confidence: 0.84,
  };
}
