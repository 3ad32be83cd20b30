import { readFileSync } from 'node:fs';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { nanoToUsd } from './decimal.ts';
import { SlidingWindow } from './sliding-window.ts';
import { packagePath } from '../../src/package-root.ts';
import type { ModelCatalogue } from './models.ts';

export interface AccountFixture {
  id: string;
  user: { id: string; email: string };
  plan: { id: string; label: string; renews_at?: string };
  limits: { requests_per_minute: number; tokens_per_minute: number; monthly_spend_cap_usd: number };
  features: { cloud_agents: boolean; ember_os: boolean; team_workspaces: boolean };
  /** Prior activity, relative to the day the server starts. */
  history?: { days_ago: number; requests: number; prompt_tokens: number; completion_tokens: number; model?: string }[];
}

export interface AccountsFile {
  default: string;
  accounts: AccountFixture[];
}

export interface DayRow {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  spendNano: number;
}

let cachedDay = -1;
let cachedDate = '';

export function utcDate(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDate = new Date(day * 86_400_000).toISOString().slice(0, 10);
  }
  return cachedDate;
}

function firstOfNextMonthUtc(ms: number): string {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class AccountState {
  readonly daily = new Map<string, DayRow>();
  /** Sliding 60 s windows for requests (amount 1 each) and tokens. */
  readonly requestWindow = new SlidingWindow();
  readonly tokenWindow = new SlidingWindow();
  tokenHash: Buffer;

  constructor(
    readonly fixture: AccountFixture,
    public token: string,
  ) {
    this.tokenHash = hashToken(token);
  }

  setToken(token: string): void {
    this.token = token;
    this.tokenHash = hashToken(token);
  }

  private month: { prefix: string; requests: number; tokens: number; spendNano: number } | null = null;

  record(now: number, promptTokens: number, completionTokens: number, spendNano: number): void {
    const key = utcDate(now);
    if (this.month !== null && key.startsWith(this.month.prefix)) {
      this.month.requests += 1;
      this.month.tokens += promptTokens + completionTokens;
      this.month.spendNano += spendNano;
    } else this.month = null;
    let row = this.daily.get(key);
    if (row === undefined) {
      row = { requests: 0, prompt_tokens: 0, completion_tokens: 0, spendNano: 0 };
      this.daily.set(key, row);
    }
    row.requests += 1;
    row.prompt_tokens += promptTokens;
    row.completion_tokens += completionTokens;
    row.spendNano += spendNano;
  }

  /** Totals of the rows of the current UTC calendar month. */
  monthTotals(now: number): { requests: number; tokens: number; spendNano: number } {
    const prefix = utcDate(now).slice(0, 7);
    if (this.month !== null && this.month.prefix === prefix) return this.month;
    let requests = 0;
    let tokens = 0;
    let spendNano = 0;
    for (const [date, row] of this.daily) {
      if (!date.startsWith(prefix)) continue;
      requests += row.requests;
      tokens += row.prompt_tokens + row.completion_tokens;
      spendNano += row.spendNano;
    }
    this.month = { prefix, requests, tokens, spendNano };
    return { requests, tokens, spendNano };
  }

  /** Spec, GET /v1/me: exactly the seed's fields. */
  me(now: number): Record<string, unknown> {
    const totals = this.monthTotals(now);
    const f = this.fixture;
    const renews = f.plan.renews_at === undefined || f.plan.renews_at === 'monthly' ? firstOfNextMonthUtc(now) : f.plan.renews_at;
    return {
      id: f.user.id,
      email: f.user.email,
      plan: { id: f.plan.id, label: f.plan.label, renews_at: renews },
      usage: { requests_this_month: totals.requests, tokens_this_month: totals.tokens, spend_usd: nanoToUsd(totals.spendNano) },
      limits: {
        requests_per_minute: f.limits.requests_per_minute,
        tokens_per_minute: f.limits.tokens_per_minute,
        monthly_spend_cap_usd: f.limits.monthly_spend_cap_usd,
      },
      features: { cloud_agents: f.features.cloud_agents, ember_os: f.features.ember_os, team_workspaces: f.features.team_workspaces },
    };
  }

  /** HTTP profile: one row per UTC day oldest first, zero-filled, last row = today (UTC). */
  usageRows(now: number, days: number): { date: string; requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number; spend_usd: number }[] {
    const rows = [];
    const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
    for (let i = days - 1; i >= 0; i--) {
      const date = utcDate(today - i * 86_400_000);
      const row = this.daily.get(date);
      rows.push({
        date,
        requests: row?.requests ?? 0,
        prompt_tokens: row?.prompt_tokens ?? 0,
        completion_tokens: row?.completion_tokens ?? 0,
        total_tokens: (row?.prompt_tokens ?? 0) + (row?.completion_tokens ?? 0),
        spend_usd: nanoToUsd(row?.spendNano ?? 0),
      });
    }
    return rows;
  }
}

function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export function generateToken(): string {
  return `iari_sk_${randomBytes(24).toString('base64url')}`;
}

export function loadAccountsFile(source: string | AccountsFile | undefined): AccountsFile {
  if (source === undefined) source = packagePath('fixtures/accounts.json');
  if (typeof source !== 'string') return source;
  const parsed = JSON.parse(readFileSync(source, 'utf8')) as AccountsFile;
  if (!Array.isArray(parsed.accounts) || parsed.accounts.length === 0 || typeof parsed.default !== 'string') {
    throw new Error(`accounts file ${source}: expected {"default": id, "accounts": [...]}`);
  }
  if (!parsed.accounts.some((a) => a.id === parsed.default)) throw new Error(`accounts file ${source}: default account "${parsed.default}" is not listed`);
  return parsed;
}

export class AccountRegistry {
  readonly accounts = new Map<string, AccountState>();
  readonly defaultId: string;

  constructor(file: AccountsFile, models: ModelCatalogue, now: number, defaultToken: string | undefined) {
    this.defaultId = file.default;
    for (const fixture of file.accounts) {
      const token = fixture.id === file.default && defaultToken !== undefined && defaultToken.length > 0 ? defaultToken : generateToken();
      const state = new AccountState(fixture, token);
      for (const h of fixture.history ?? []) {
        const model = models.get(h.model ?? 'iari-mini') ?? models.all()[0];
        const spend = model === undefined ? 0 : h.prompt_tokens * model.inputNanoPerToken + h.completion_tokens * model.outputNanoPerToken;
        const at = now - h.days_ago * 86_400_000;
        const key = utcDate(at);
        const row = state.daily.get(key) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, spendNano: 0 };
        row.requests += h.requests;
        row.prompt_tokens += h.prompt_tokens;
        row.completion_tokens += h.completion_tokens;
        row.spendNano += spend;
        state.daily.set(key, row);
      }
      this.accounts.set(fixture.id, state);
    }
  }

  /** Tokens are compared in constant time (SHA-256 digests through timingSafeEqual, every account visited). */
  authenticate(token: string): AccountState | undefined {
    const candidate = hashToken(token);
    let found: AccountState | undefined;
    for (const account of this.accounts.values()) {
      if (timingSafeEqual(candidate, account.tokenHash) && found === undefined) found = account;
    }
    return found;
  }

  get default(): AccountState {
    const a = this.accounts.get(this.defaultId);
    if (a === undefined) throw new Error('default account missing');
    return a;
  }

  tokens(): { default: string; byAccount: Record<string, string> } {
    const byAccount: Record<string, string> = {};
    for (const [id, a] of this.accounts) byAccount[id] = a.token;
    return { default: this.default.token, byAccount };
  }
}
