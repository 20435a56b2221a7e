-- Hand-edited. Each usage counter names the account its charges were made in, so the console's breakdown by
-- workspace, project, key and feature is a range over the account's counters of the period
-- (credit_usage_daily_account_idx) instead of a walk from every workspace, project and key the account ever had
-- (one browser key per console page load). The counters are emptied, the column added, and the counters rebuilt
-- from the ledger with their accounts (the last statement): the sums `pnpm admin usage reconcile` checks. The
-- counters of deleted workspaces and projects, whose ledger rows no longer name them and which nothing reads,
-- are not rebuilt. One scan of the ledger, once, in the migrations' transaction (charges wait for it).
DELETE FROM "credit_usage_daily";--> statement-breakpoint
ALTER TABLE "credit_usage_daily" ADD COLUMN "account_id" text NOT NULL;--> statement-breakpoint
-- Migration 0013's charge, the same but for the account it writes on each counter row.
CREATE OR REPLACE FUNCTION charge_credits(
  p_account_id text, p_workspace_id text, p_project_id text, p_api_key_id text, p_amount bigint, p_reservation_id text,
  p_fixed boolean, p_description text, p_operation_id text, p_request_id text, p_now timestamptz, p_since date,
  p_period_start timestamptz, p_counters jsonb, p_ids jsonb
) RETURNS TABLE (result text, refused_scope text, refused_limit bigint, refused_used bigint, available bigint, ledger text, charged bigint, balance bigint, alerts text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_account accounts%ROWTYPE;
  v_ws_found boolean := false;
  v_ws_limit bigint;
  v_ws_alert bigint;
  v_ws_email text;
  v_pj_found boolean := false;
  v_pj_limit bigint;
  v_pj_alert bigint;
  v_pj_email text;
  v_acct_used bigint := 0;
  v_ws_used bigint := 0;
  v_pj_used bigint := 0;
  v_others bigint;
  v_rechargeable boolean;
  v_recharge_first boolean;
  v_balance bigint;
  v_charged bigint;
  v_after bigint;
  v_alerts text[] := '{}';
BEGIN
  SELECT a.* INTO v_account FROM accounts a WHERE a.id = p_account_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN RAISE EXCEPTION 'no account %', p_account_id; END IF;
  IF p_workspace_id IS NOT NULL THEN
    SELECT w.usage_limit, w.budget_alert, w.billing_email INTO v_ws_limit, v_ws_alert, v_ws_email
      FROM workspaces w WHERE w.id = p_workspace_id FOR NO KEY UPDATE;
    v_ws_found := FOUND;
  END IF;
  IF p_project_id IS NOT NULL THEN
    SELECT p.usage_limit, p.budget_alert, p.billing_email INTO v_pj_limit, v_pj_alert, v_pj_email
      FROM projects p WHERE p.id = p_project_id FOR NO KEY UPDATE;
    v_pj_found := FOUND;
  END IF;

  -- From here each statement sees what was committed while the locks were awaited.
  v_others := credit_held_by_others(v_account.id, p_now, p_reservation_id);
  IF v_account.usage_limit IS NOT NULL OR v_account.budget_alert IS NOT NULL THEN
    v_acct_used := credit_period_usage('account', v_account.id, p_since);
  END IF;
  IF v_ws_found AND (v_ws_limit IS NOT NULL OR v_ws_alert IS NOT NULL) THEN
    v_ws_used := credit_period_usage('workspace', p_workspace_id, p_since);
  END IF;
  IF v_pj_found AND (v_pj_limit IS NOT NULL OR v_pj_alert IS NOT NULL) THEN
    v_pj_used := credit_period_usage('project', p_project_id, p_since);
  END IF;

  -- A metered call was checked before it ran and is charged in full (DECISIONS.md, Budgets and limits).
  IF p_fixed THEN
    IF v_account.usage_limit IS NOT NULL AND v_acct_used + p_amount > v_account.usage_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, 'account'::text, v_account.usage_limit, v_acct_used, NULL::bigint, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
    IF v_ws_found AND v_ws_limit IS NOT NULL AND v_ws_used + p_amount > v_ws_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, 'workspace'::text, v_ws_limit, v_ws_used, NULL::bigint, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
    IF v_pj_found AND v_pj_limit IS NOT NULL AND v_pj_used + p_amount > v_pj_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, 'project'::text, v_pj_limit, v_pj_used, NULL::bigint, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
      RETURN;
    END IF;
  END IF;

  v_rechargeable := v_account.auto_recharge_enabled AND v_account.auto_recharge_credits > 0;
  v_recharge_first := v_rechargeable AND v_account.credit_balance - v_others < p_amount;
  v_balance := v_account.credit_balance + CASE WHEN v_recharge_first THEN v_account.auto_recharge_credits ELSE 0 END;
  IF p_fixed AND v_balance - v_others < p_amount THEN
    RETURN QUERY SELECT 'insufficient_credits'::text, NULL::text, NULL::bigint, NULL::bigint, greatest(0, v_balance - v_others), NULL::text, NULL::bigint, NULL::bigint, NULL::text;
    RETURN;
  END IF;

  -- Every check passed: the writes.
  IF p_reservation_id IS NOT NULL THEN
    DELETE FROM credit_reservations r WHERE r.id = p_reservation_id;
  END IF;
  IF v_recharge_first THEN
    UPDATE accounts a SET credit_balance = a.credit_balance + v_account.auto_recharge_credits WHERE a.id = v_account.id
      RETURNING a.credit_balance INTO v_balance;
    INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, description, created_at)
      VALUES (p_ids->>'recharge', v_account.id, 'auto_recharge', v_account.auto_recharge_credits, v_balance, 'Auto-recharge', p_now);
  END IF;
  -- Output beyond the estimate takes the balance at most to zero (to what other running calls hold).
  v_charged := least(p_amount, greatest(0, v_balance - v_others));
  IF v_charged = 0 THEN
    RETURN QUERY SELECT 'ok'::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text, 0::bigint, v_balance, NULL::text;
    RETURN;
  END IF;

  UPDATE accounts a SET credit_balance = a.credit_balance - v_charged WHERE a.id = v_account.id RETURNING a.credit_balance INTO v_after;
  INSERT INTO credit_ledger (id, account_id, workspace_id, project_id, api_key_id, kind, amount, balance_after, operation_id, request_id, description, created_at)
    VALUES (p_ids->>'ledger', v_account.id, p_workspace_id, p_project_id, p_api_key_id, 'charge', -v_charged, v_after, p_operation_id, p_request_id, p_description, p_now);
  INSERT INTO credit_usage_daily AS u (scope, scope_id, day, credits, account_id)
    SELECT c->>'scope', c->>'scope_id', (c->>'day')::date, v_charged, v_account.id FROM jsonb_array_elements(p_counters) AS c
    ON CONFLICT (scope, scope_id, day) DO UPDATE SET credits = u.credits + excluded.credits;

  -- Auto-recharge once the remaining credits fall to the threshold.
  IF v_rechargeable AND v_after <= v_account.auto_recharge_threshold THEN
    UPDATE accounts a SET credit_balance = a.credit_balance + v_account.auto_recharge_credits WHERE a.id = v_account.id
      RETURNING a.credit_balance INTO v_balance;
    INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, description, created_at)
      VALUES (p_ids->>'recharge_after', v_account.id, 'auto_recharge', v_account.auto_recharge_credits, v_balance, 'Auto-recharge', p_now);
  END IF;

  -- Alerts: the first crossing in a period is recorded (the e-mail outbox), to the scope's billing address,
  -- else (a project) the workspace's, else the owner's; later charges only flag it.
  IF v_account.budget_alert IS NOT NULL AND v_acct_used + v_charged >= v_account.budget_alert AND v_acct_used < v_account.budget_alert THEN
    INSERT INTO budget_alerts (id, account_id, scope, threshold, credits_used, period_start, billing_email, created_at)
      VALUES (p_ids->>'alert_account', v_account.id, 'account:' || v_account.id, v_account.budget_alert, v_acct_used + v_charged, p_period_start,
        (SELECT us.email FROM users us WHERE us.account_id = v_account.id ORDER BY us.created_at LIMIT 1), p_now)
      ON CONFLICT DO NOTHING;
  END IF;
  IF v_ws_found AND v_ws_alert IS NOT NULL AND v_ws_used + v_charged >= v_ws_alert THEN
    v_alerts := v_alerts || 'workspace'::text;
    IF v_ws_used < v_ws_alert THEN
      INSERT INTO budget_alerts (id, account_id, workspace_id, scope, threshold, credits_used, period_start, billing_email, created_at)
        VALUES (p_ids->>'alert_workspace', v_account.id, p_workspace_id, 'workspace:' || p_workspace_id, v_ws_alert, v_ws_used + v_charged, p_period_start,
          coalesce(v_ws_email, (SELECT us.email FROM users us WHERE us.account_id = v_account.id ORDER BY us.created_at LIMIT 1)), p_now)
        ON CONFLICT DO NOTHING;
    END IF;
  END IF;
  IF v_pj_found AND v_pj_alert IS NOT NULL AND v_pj_used + v_charged >= v_pj_alert THEN
    v_alerts := v_alerts || 'project'::text;
    IF v_pj_used < v_pj_alert THEN
      INSERT INTO budget_alerts (id, account_id, project_id, scope, threshold, credits_used, period_start, billing_email, created_at)
        VALUES (p_ids->>'alert_project', v_account.id, p_project_id, 'project:' || p_project_id, v_pj_alert, v_pj_used + v_charged, p_period_start,
          coalesce(v_pj_email, v_ws_email, (SELECT us.email FROM users us WHERE us.account_id = v_account.id ORDER BY us.created_at LIMIT 1)), p_now)
        ON CONFLICT DO NOTHING;
    END IF;
  END IF;

  RETURN QUERY SELECT 'ok'::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, p_ids->>'ledger', v_charged, v_after, nullif(array_to_string(v_alerts, ', '), '');
END
$$;
--> statement-breakpoint
-- drizzle-kit wrote credit_usage_daily_account_idx here; src/db/online-indexes.ts builds it after the migrations,
-- CONCURRENTLY on PostgreSQL.
-- Hand-written from here: the counters from the ledger (charges net of refunds per scope and UTC day, as 0008 and
-- 0010 built them), each with its account. billing/reconcile.ts (usageCountersBackfills) runs this statement again
-- for tests and bench:scale, whose bulk ledger rows bypass the writers.
INSERT INTO "credit_usage_daily" ("account_id", "scope", "scope_id", "day", "credits")
SELECT l."account_id", v.scope, v.scope_id, l.day, sum(l.credits) FROM (
	SELECT "account_id", "workspace_id", "project_id", "api_key_id", "operation_id",
		("created_at" AT TIME ZONE 'UTC')::date AS day, -"amount" AS credits
	FROM "credit_ledger" WHERE "kind" IN ('charge', 'refund')
) l
CROSS JOIN LATERAL (VALUES
	('account', l."account_id"),
	('account_keys', CASE WHEN l."api_key_id" IS NOT NULL THEN l."account_id" END),
	('workspace', l."workspace_id"),
	('project', l."project_id"),
	('api_key', l."api_key_id"),
	('account_feature', l."account_id" || ':' || coalesce(l."operation_id", ''))
) AS v(scope, scope_id)
WHERE v.scope_id IS NOT NULL
GROUP BY l."account_id", v.scope, v.scope_id, l.day;
