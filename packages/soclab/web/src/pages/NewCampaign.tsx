import { useMemo, useState } from 'react';
import { api, useApi } from '../api';
import { ErrorNote } from '../components/ui';
import { go, link } from '../router';
import { type CampaignView, can, type Me, type ProviderRow, type ScenarioRow } from '../types';

const CONTROLS = ['policy', 'approvals', 'grants', 'redaction', 'labels', 'limits', 'scope'] as const;
const APPROVERS = [
  ['none', 'none: requests stay pending (as in the reference lab)'],
  ['human', 'human: runs wait for a decision in the approvals inbox'],
  ['ideal', 'ideal: approves exactly the legitimate actions'],
  ['rubber_stamp', 'rubber stamp: approves everything'],
  ['noisy', 'noisy: approves wrong actions with probability p'],
] as const;

/** The campaign form: mode, provider and model, scenarios, repeats, authority, approver and ablation. */
export function NewCampaign({ me }: { me: Me }) {
  const providers = useApi<ProviderRow[]>('/api/v1/providers');
  const scenarios = useApi<ScenarioRow[]>('/api/v1/scenarios');
  const [mode, setMode] = useState<'protected' | 'baseline'>('protected');
  const [provider, setProvider] = useState('mock');
  const [model, setModel] = useState('');
  const [level, setLevel] = useState('L4');
  const [repeats, setRepeats] = useState(1);
  const [approver, setApprover] = useState('none');
  const [noise, setNoise] = useState('0.1');
  const [timeout, setTimeoutSeconds] = useState('240');
  const [ablate, setAblate] = useState('');
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const live = provider !== 'mock';
  const available = useMemo(
    () => (scenarios.data ?? []).filter((s) => !(live && s.needs_mock)),
    [scenarios.data, live],
  );
  const chosen = picked ?? new Set(available.map((s) => s.id));
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setPicked(next);
  };

  if (!can(me, 'run')) {
    return <p className="muted">Your role ({me.you.role}) cannot start campaigns; ask for an operator token.</p>;
  }

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const everything = available.every((s) => chosen.has(s.id));
    const body: Record<string, unknown> = {
      mode,
      provider_id: provider,
      authority_level: level,
      repeats,
    };
    if (live && model.trim()) body.model = model.trim();
    if (!everything) body.scenario_ids = available.filter((s) => chosen.has(s.id)).map((s) => s.id);
    if (mode === 'protected') {
      body.approver = approver === 'noisy' ? `noisy:${noise}` : approver;
      if (approver === 'human') body.approval_timeout_seconds = Number(timeout);
      if (ablate) body.ablate = ablate;
    }
    try {
      const created = await api.post<CampaignView>('/api/v1/campaigns', body);
      go(link(['campaigns', created.campaign_id]));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="campaign-form" onSubmit={submit}>
      <h1>Start a campaign</h1>
      <fieldset>
        <legend>Mode</legend>
        {(['protected', 'baseline'] as const).map((m) => (
          <label key={m} className="inline">
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
            {m === 'protected' ? 'protected (through the control plane)' : 'baseline (no controls)'}
          </label>
        ))}
      </fieldset>

      <fieldset>
        <legend>Model</legend>
        <label>
          Provider
          <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
            {(providers.data ?? [{ provider_id: 'mock', configured: true, approved: true } as ProviderRow]).map((p) => (
              <option key={p.provider_id} value={p.provider_id} disabled={!p.configured || !p.approved}>
                {p.provider_id}
                {!p.configured ? ` (not configured: set ${p.missing_env_vars?.join(', ') || 'its settings'})` : ''}
                {p.configured && !p.approved ? ' (not approved)' : ''}
              </option>
            ))}
          </select>
        </label>
        {live ? (
          <label>
            Model
            <input
              name="model"
              value={model}
              maxLength={200}
              onChange={(e) => setModel(e.target.value)}
              placeholder="default model"
            />
          </label>
        ) : (
          <p className="muted small">The mock plays each scenario's scripted adversary model.</p>
        )}
        <label>
          Authority level requested
          <select name="level" value={level} onChange={(e) => setLevel(e.target.value)}>
            {['L1', 'L2', 'L3', 'L4', 'L5'].map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <label>
          Repeats
          <input
            name="repeats"
            type="number"
            min={1}
            max={10}
            value={repeats}
            onChange={(e) => setRepeats(Number(e.target.value))}
          />
        </label>
      </fieldset>

      {mode === 'protected' ? (
        <fieldset>
          <legend>Control plane</legend>
          <label>
            Approver
            <select name="approver" value={approver} onChange={(e) => setApprover(e.target.value)}>
              {APPROVERS.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </label>
          {approver === 'noisy' ? (
            <label>
              p
              <input
                name="noise"
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={noise}
                onChange={(e) => setNoise(e.target.value)}
              />
            </label>
          ) : null}
          {approver === 'human' ? (
            <label>
              Wait for a decision (seconds)
              <input
                name="approval_timeout"
                type="number"
                min={1}
                max={86400}
                value={timeout}
                onChange={(e) => setTimeoutSeconds(e.target.value)}
              />
            </label>
          ) : null}
          <label>
            Ablation (run without one control)
            <select name="ablate" value={ablate} onChange={(e) => setAblate(e.target.value)}>
              <option value="">none: every control on</option>
              {CONTROLS.map((c) => (
                <option key={c} value={c}>
                  without {c}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
      ) : null}

      <fieldset>
        <legend>
          Scenarios ({chosen.size} of {available.length})
        </legend>
        <div className="row">
          <button type="button" className="link" onClick={() => setPicked(new Set(available.map((s) => s.id)))}>
            all
          </button>
          <button type="button" className="link" onClick={() => setPicked(new Set())}>
            none
          </button>
          <button
            type="button"
            className="link"
            onClick={() => setPicked(new Set(available.filter((s) => s.benign).map((s) => s.id)))}
          >
            benign controls only
          </button>
        </div>
        <div className="scenario-grid">
          {available.map((s) => (
            <label key={s.id} className="inline small" title={`${s.attack_class} · ${s.family} · ${s.difficulty}`}>
              <input
                type="checkbox"
                name="scenario"
                value={s.id}
                checked={chosen.has(s.id)}
                onChange={() => toggle(s.id)}
              />
              <strong>{s.id}</strong> {s.title}
            </label>
          ))}
        </div>
      </fieldset>

      <ErrorNote error={error} />
      <button type="submit" disabled={busy || chosen.size === 0}>
        Start campaign
      </button>
    </form>
  );
}
