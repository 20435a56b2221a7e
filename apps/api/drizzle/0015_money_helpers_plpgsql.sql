-- Custom: migration 0013's two scalar helpers of the hold and the charge, as PL/pgSQL instead of SQL. PostgreSQL
-- (before 18) plans the body of a SQL function that is not inlined again in every statement that calls it; a
-- PL/pgSQL function keeps its plan for the session. credit_held_by_others ran twice per charged call (the hold,
-- then the charge) and took 0.14–0.18 ms a call, nearly all of it planning; as PL/pgSQL, 0.03 ms
-- (pg_stat_user_functions, bench/README.md). Same arguments, result and snapshot (STABLE: the calling
-- statement's), so callers are unchanged. default_workspace_of stays SQL: as a set-returning SQL function in
-- FROM it is inlined into its callers' statements, whose plans are kept.
CREATE OR REPLACE FUNCTION credit_period_usage(p_scope text, p_scope_id text, p_since date) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT greatest(0, coalesce(sum(u.credits), 0))::bigint FROM credit_usage_daily u
    WHERE u.scope = p_scope AND u.scope_id = p_scope_id AND u.day >= p_since);
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION credit_held_by_others(p_account_id text, p_now timestamptz, p_except text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(r.credits), 0)::bigint FROM credit_reservations r
    WHERE r.account_id = p_account_id AND r.expires_at > p_now AND (p_except IS NULL OR r.id <> p_except));
END
$$;
