-- Custom: the credit hold and the charge as one statement each (DECISIONS.md, Credits: "A hold and a charge
-- are one statement each"). Each is a VOLATILE PL/pgSQL function: in READ COMMITTED every statement in it
-- takes a new snapshot, so the sums that follow the row locks see every hold and charge committed while the
-- lock was awaited, as the separate statements of a transaction did. Called alone it is its own transaction
-- (no BEGIN/COMMIT); called inside one (a charged create) it is one statement of it. A refusal (a usage
-- limit, too few credits, a role that may not call) writes nothing and comes back as `result`, never as an
-- exception, so the caller answers the same error envelope as before. Ids are made by the caller (lib/ids.ts).

-- The caller's default workspace (DECISIONS.md): the oldest workspace they own, with their role in it; no row
-- when they own none. The one definition: workspaces/access.ts (defaultWorkspace) and hold_credits read it.
CREATE OR REPLACE FUNCTION default_workspace_of(p_user_id text) RETURNS TABLE (workspace_id text, member_role text)
LANGUAGE sql STABLE AS $$
  SELECT w.id, m.role FROM workspaces w JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = p_user_id
  WHERE w.owner_user_id = p_user_id ORDER BY w.created_at, w.id LIMIT 1
$$;
--> statement-breakpoint
-- This period's credits of one counter scope (charges net of refunds, never below 0): at most 31 rows.
CREATE OR REPLACE FUNCTION credit_period_usage(p_scope text, p_scope_id text, p_since date) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT greatest(0, coalesce(sum(u.credits), 0))::bigint FROM credit_usage_daily u
  WHERE u.scope = p_scope AND u.scope_id = p_scope_id AND u.day >= p_since
$$;
--> statement-breakpoint
-- Credits held by an account's unexpired holds other than `p_except`.
CREATE OR REPLACE FUNCTION credit_held_by_others(p_account_id text, p_now timestamptz, p_except text) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(r.credits), 0)::bigint FROM credit_reservations r
  WHERE r.account_id = p_account_id AND r.expires_at > p_now AND (p_except IS NULL OR r.id <> p_except)
$$;
--> statement-breakpoint
-- The hold before a token-priced call (billing/credits.ts, reserveCredits). With `p_user_id` the scope is that
-- user's default workspace (the oldest they own; none: the account alone), and their role in it must be one of
-- `p_allowed_roles` (a JSON array). Locks account, workspace, project in that order (NO KEY UPDATE: no conflict
-- with the KEY SHARE of rows that reference them); a workspace or project gone meanwhile no longer limits.
-- `result`: ok | permission_denied | usage_limit_exceeded | insufficient_credits.
CREATE OR REPLACE FUNCTION hold_credits(
  p_hold_id text, p_account_id text, p_workspace_id text, p_project_id text, p_user_id text, p_allowed_roles jsonb,
  p_floor bigint, p_estimate bigint, p_now timestamptz, p_expires_at timestamptz, p_since date
) RETURNS TABLE (result text, workspace text, member_role text, refused_scope text, refused_limit bigint, refused_used bigint, available bigint, held bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_workspace text := p_workspace_id;
  v_role text;
  v_account accounts%ROWTYPE;
  v_ws_limit bigint;
  v_ws_found boolean := false;
  v_pj_limit bigint;
  v_pj_found boolean := false;
  v_others bigint;
  v_used bigint;
  v_rechargeable boolean;
  v_credits bigint;
BEGIN
  IF p_user_id IS NOT NULL THEN
    SELECT d.workspace_id, d.member_role INTO v_workspace, v_role FROM default_workspace_of(p_user_id) d;
    IF v_workspace IS NOT NULL AND NOT (p_allowed_roles ? v_role) THEN
      RETURN QUERY SELECT 'permission_denied'::text, v_workspace, v_role, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
  END IF;

  SELECT a.* INTO v_account FROM accounts a WHERE a.id = p_account_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN RAISE EXCEPTION 'no account %', p_account_id; END IF;
  IF v_workspace IS NOT NULL THEN
    SELECT w.usage_limit INTO v_ws_limit FROM workspaces w WHERE w.id = v_workspace FOR NO KEY UPDATE;
    v_ws_found := FOUND;
  END IF;
  IF p_project_id IS NOT NULL THEN
    SELECT p.usage_limit INTO v_pj_limit FROM projects p WHERE p.id = p_project_id FOR NO KEY UPDATE;
    v_pj_found := FOUND;
  END IF;

  -- From here each statement sees what was committed while the locks were awaited.
  IF v_account.usage_limit IS NOT NULL THEN
    v_used := credit_period_usage('account', v_account.id, p_since);
    IF v_used >= v_account.usage_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, v_workspace, v_role, 'account'::text, v_account.usage_limit, v_used, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
  END IF;
  IF v_ws_found AND v_ws_limit IS NOT NULL THEN
    v_used := credit_period_usage('workspace', v_workspace, p_since);
    IF v_used >= v_ws_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, v_workspace, v_role, 'workspace'::text, v_ws_limit, v_used, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
  END IF;
  IF v_pj_found AND v_pj_limit IS NOT NULL THEN
    v_used := credit_period_usage('project', p_project_id, p_since);
    IF v_used >= v_pj_limit THEN
      RETURN QUERY SELECT 'usage_limit_exceeded'::text, v_workspace, v_role, 'project'::text, v_pj_limit, v_used, NULL::bigint, NULL::bigint;
      RETURN;
    END IF;
  END IF;

  v_others := credit_held_by_others(v_account.id, p_now, NULL);
  v_rechargeable := v_account.auto_recharge_enabled AND v_account.auto_recharge_credits > 0;
  IF v_account.credit_balance - v_others < p_floor AND NOT v_rechargeable THEN
    RETURN QUERY SELECT 'insufficient_credits'::text, v_workspace, v_role, NULL::text, NULL::bigint, NULL::bigint,
      greatest(0, v_account.credit_balance - v_others), NULL::bigint;
    RETURN;
  END IF;
  -- The estimate, or as much of it as no other call holds (at least the floor).
  v_credits := CASE WHEN v_rechargeable THEN p_estimate
    ELSE greatest(p_floor, least(p_estimate, v_account.credit_balance - v_others)) END;
  INSERT INTO credit_reservations (id, account_id, credits, created_at, expires_at)
    VALUES (p_hold_id, v_account.id, v_credits, p_now, p_expires_at);
  RETURN QUERY SELECT 'ok'::text, v_workspace, v_role, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, v_credits;
END
$$;
--> statement-breakpoint
-- The charge (billing/credits.ts, chargeCredits): takes the call's own hold (`p_reservation_id`), refuses a
-- fixed price past a usage limit or beyond the credits no other call holds, auto-recharges when the balance
-- would not cover it and again once it falls to the threshold, debits at most to what other calls hold, writes
-- the ledger row with the balance it leaves, adds to the usage counters `p_counters` ([{scope, scope_id, day}])
-- and records a budget alert's first crossing in the period. `p_ids`: {ledger, recharge, recharge_after,
-- alert_account, alert_workspace, alert_project}. Nothing is written before every check has passed.
-- `result`: ok | usage_limit_exceeded | insufficient_credits; `alerts`: 'workspace', 'project' or both, comma-separated.
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
  INSERT INTO credit_usage_daily AS u (scope, scope_id, day, credits)
    SELECT c->>'scope', c->>'scope_id', (c->>'day')::date, v_charged FROM jsonb_array_elements(p_counters) AS c
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
