import { useQuery } from '@tanstack/react-query';
import { consoleApi, messageOf } from '../api';
import { BarChart, Meter } from '../charts';
import { useSignedIn } from '../session';

/** Usage and credits of the billing period: balance, meters, and requests, tokens and errors per key. */
export function Usage() {
  const { api } = useSignedIn();
  const usage = useQuery({ queryKey: ['usage'], queryFn: async () => (await api.GET('/usage')).data });
  const breakdown = useQuery({ queryKey: ['usage-breakdown'], queryFn: async () => (await consoleApi.GET('/console/usage')).data });
  if (usage.isPending) return <p role="status">Loading usage…</p>;
  if (usage.isError) return <p role="alert">{messageOf(usage.error)}</p>;
  const u = usage.data;
  const keys = u.api_requests.by_key;
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage and credits</h1>
      <p>
        Billing period {new Date(u.billing_period.start).toLocaleDateString()} – {new Date(u.billing_period.end).toLocaleDateString()} · {u.rate_limit.tier} tier,{' '}
        {u.rate_limit.requests_per_minute} requests per minute.
      </p>
      <div className="cards">
        <div className="card">
          <h2>Balance</h2>
          <p className="big" data-testid="balance">
            {u.credits.remaining.toLocaleString()} credits
          </p>
        </div>
        <div className="card">
          <h2>Limits</h2>
          <p>Budget alert: {u.limits.budget_alert?.toLocaleString() ?? 'none'}</p>
          <p>Usage limit: {u.limits.usage_limit?.toLocaleString() ?? 'none'}</p>
          <p>Auto-recharge: {u.auto_recharge.enabled ? `${u.auto_recharge.credits_to_add} credits below ${u.auto_recharge.threshold}` : 'off'}</p>
        </div>
      </div>
      <Meter label="Credits used" used={u.credits.used} included={u.credits.included} unit="credits" />
      <Meter label="Transcription" used={u.transcription.minutes_used} included={u.transcription.minutes_included} unit="minutes" />
      <Meter label="Storage" used={u.storage.gb_used} included={u.storage.gb_included} unit="GB" />
      <h2>Credits this period</h2>
      {breakdown.isError && <p role="alert">{messageOf(breakdown.error)}</p>}
      {breakdown.data && breakdown.data.total_credits === 0 && <p>No credits spent yet this period: try the playground.</p>}
      {breakdown.data && breakdown.data.total_credits > 0 && (
        <div className="cards">
          <BarChart title="Credits by day" bars={breakdown.data.by_day.map((group) => ({ label: group.id ?? '—', value: group.credits }))} />
          <BarChart title="Credits by feature" bars={breakdown.data.by_feature.map((group) => ({ label: group.id ?? 'other', value: group.credits }))} />
          <BarChart title="Credits by workspace" bars={breakdown.data.by_workspace.map((group) => ({ label: group.name ?? group.id ?? 'no workspace', value: group.credits }))} />
          <BarChart title="Credits by project" bars={breakdown.data.by_project.map((group) => ({ label: group.name ?? group.id ?? 'no project', value: group.credits }))} />
          <BarChart title="Credits by key" bars={breakdown.data.by_key.map((group) => ({ label: group.name ?? group.id ?? 'no key', value: group.credits }))} />
        </div>
      )}
      <h2>API requests</h2>
      <p>
        {u.api_requests.total_requests.toLocaleString()} requests, {u.api_requests.total_tokens.toLocaleString()} tokens, {u.api_requests.credits_used.toLocaleString()} credits,{' '}
        {u.api_requests.error_count} errors, {u.api_requests.avg_latency_ms} ms on average.
      </p>
      {keys.length === 0 ? (
        <p>No requests this period yet: create a key under API keys and make a call.</p>
      ) : (
        <>
          <BarChart title="Requests per key" bars={keys.map((key) => ({ label: `${key.name} (${key.key_prefix}…)`, value: key.requests }))} />
          <BarChart title="Tokens per key" bars={keys.map((key) => ({ label: `${key.name} (${key.key_prefix}…)`, value: key.tokens }))} />
          <BarChart title="Errors per key" bars={keys.map((key) => ({ label: `${key.name} (${key.key_prefix}…)`, value: key.errors }))} />
        </>
      )}
    </section>
  );
}
