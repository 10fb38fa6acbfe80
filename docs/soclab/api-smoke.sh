#!/usr/bin/env bash
# A walk through the soclab API with curl: start a server (unless SOCLAB_URL points at one), start a protected
# campaign whose escalations wait for a human, approve the pending action as an approver, wait for the campaign,
# then read its summary, its runs' chain verification and its scorecard.
#
#   docs/soclab/api-smoke.sh                     # starts `soclab serve` on a free port with throwaway tokens
#   SOCLAB_URL=http://127.0.0.1:8780 OPERATOR_TOKEN=... APPROVER_TOKEN=... docs/soclab/api-smoke.sh
#
# Needs curl and node (for reading JSON). Exits non-zero on the first unexpected answer.
set -euo pipefail
cd "$(dirname "$0")/../.."

json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);const r=new Function("v","return "+process.argv[1])(v);console.log(typeof r==="string"?r:JSON.stringify(r))})' "$1"; }
say() { printf '\n== %s\n' "$*"; }

server_pid=""
work=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  [ -n "$work" ] && rm -rf "$work"
  return 0
}
trap cleanup EXIT

if [ -z "${SOCLAB_URL:-}" ]; then
  work=$(mktemp -d)
  OPERATOR_TOKEN="operator-$(node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))')"
  APPROVER_TOKEN="approver-$(node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))')"
  if [ -f packages/soclab/dist/cli/main.js ]; then cli=(node packages/soclab/bin/soclab.js); else cli=(node --import tsx packages/soclab/src/cli/main.ts); fi
  SOCLAB_API_TOKENS="ops:operator:$OPERATOR_TOKEN,soc-lead:approver:$APPROVER_TOKEN" \
    "${cli[@]}" serve --port 0 --data-dir "$work/data" >"$work/url" 2>"$work/serve.log" &
  server_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.2; done
  SOCLAB_URL=$(head -1 "$work/url")
  [ -n "$SOCLAB_URL" ] || { cat "$work/serve.log"; exit 1; }
fi
: "${OPERATOR_TOKEN:?set OPERATOR_TOKEN}" "${APPROVER_TOKEN:?set APPROVER_TOKEN}"
OP=(-H "Authorization: Bearer $OPERATOR_TOKEN")
AP=(-H "Authorization: Bearer $APPROVER_TOKEN")
echo "server: $SOCLAB_URL"

say "health (no token needed)"
curl -sf "$SOCLAB_URL/health"; echo

say "no token -> 401"
curl -s -o /dev/null -w '%{http_code}\n' "$SOCLAB_URL/api/v1/campaigns"

say "who am I"
curl -sf "${OP[@]}" "$SOCLAB_URL/api/v1/version"; echo

say "an invalid request -> 422 with the field path"
curl -s "${OP[@]}" -H 'content-type: application/json' -d '{"mode":"protected","repeats":50}' \
  "$SOCLAB_URL/api/v1/campaigns" | json 'v.issues'

say "start a protected campaign (human approver) -> 202 + Location"
created=$(curl -sf -D "${work:-/tmp}/headers" "${OP[@]}" -H 'content-type: application/json' \
  -d '{"mode":"protected","scenario_ids":["ATK-001","ATK-005","BEN-001"],"approver":"human","approval_timeout_seconds":120}' \
  "$SOCLAB_URL/api/v1/campaigns")
id=$(echo "$created" | json 'v.campaign_id')
grep -i '^location:' "${work:-/tmp}/headers"
echo "campaign $id is $(echo "$created" | json 'v.status')"

say "the approvals inbox (BEN-001's session revocation waits for a person)"
approval=""
for _ in $(seq 1 150); do
  approval=$(curl -sf "${AP[@]}" "$SOCLAB_URL/api/v1/approvals?campaign_id=$id" | json 'v[0] ? v[0].approval_id : ""')
  [ -n "$approval" ] && break
  sleep 0.2
done
[ -n "$approval" ] || { echo "no approval request appeared"; exit 1; }
curl -sf "${AP[@]}" "$SOCLAB_URL/api/v1/approvals?campaign_id=$id" | json 'v.map(a => ({tool: a.tool_name, arguments: a.arguments, why: a.reason_codes}))'

say "an operator cannot decide -> 403"
curl -s -o /dev/null -w '%{http_code}\n' "${OP[@]}" -H 'content-type: application/json' \
  -d '{"decision":"approved","reason":"not mine to decide"}' "$SOCLAB_URL/api/v1/approvals/$approval/decision"

say "the approver approves"
curl -sf "${AP[@]}" -H 'content-type: application/json' \
  -d '{"decision":"approved","reason":"confirmed with the account owner"}' \
  "$SOCLAB_URL/api/v1/approvals/$approval/decision" | json '({outcome: v.outcome, by: v.approver_id})'

say "approving twice -> 409"
curl -s -o /dev/null -w '%{http_code}\n' "${AP[@]}" -H 'content-type: application/json' \
  -d '{"decision":"approved","reason":"again"}' "$SOCLAB_URL/api/v1/approvals/$approval/decision"

say "wait for the campaign"
for _ in $(seq 1 300); do
  status=$(curl -sf "${OP[@]}" "$SOCLAB_URL/api/v1/campaigns/$id" | json 'v.status')
  [ "$status" = completed ] || [ "$status" = failed ] && break
  sleep 0.2
done
curl -sf "${OP[@]}" "$SOCLAB_URL/api/v1/campaigns/$id" |
  json '({status: v.status, attack_success: v.summary.attack_success.numerator + " of " + v.summary.attack_success.denominator, level: v.summary.recommended_level, gates_failed: v.summary.gate_failures})'
[ "$status" = completed ]

say "evidence: every run's chain verifies"
curl -sf "${OP[@]}" "$SOCLAB_URL/api/v1/runs?campaign_id=$id" | json 'v.map(r => `${r.scenario_id} valid=${r.valid} events=${r.length}`).join("\n")'

say "the scorecard (JSON) and the executive report (HTML)"
curl -sf "${OP[@]}" "$SOCLAB_URL/api/v1/campaigns/$id/reports/executive/json" | json '({schema: v.schema, level: v.assessment.authority.level})'
curl -sf "${OP[@]}" -o /dev/null -w 'executive HTML: %{http_code} %{content_type}\n' "$SOCLAB_URL/api/v1/campaigns/$id/reports/executive"

echo
echo "smoke test passed"
