/** An account's plans, apart from the entity so the CLI can check `--plan` without loading TypeORM. */
export const PLANS = ['basic', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];
