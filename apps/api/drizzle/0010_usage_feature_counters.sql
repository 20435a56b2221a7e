-- Custom: the `account_feature` usage counters (credits per account, operation and UTC day) that the console's
-- breakdown by feature reads, filled from the ledger as 0008 filled the others. Refunds written before now
-- carry no operation on their ledger rows and count under `<account id>:`; from now on a refund names the
-- operation of its charge.
INSERT INTO "credit_usage_daily" ("scope", "scope_id", "day", "credits")
SELECT 'account_feature', "account_id" || ':' || coalesce("operation_id", ''), ("created_at" AT TIME ZONE 'UTC')::date, sum(-"amount")
FROM "credit_ledger" WHERE "kind" IN ('charge', 'refund')
GROUP BY 2, 3
ON CONFLICT ("scope", "scope_id", "day") DO NOTHING;
