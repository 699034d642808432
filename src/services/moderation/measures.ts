// The dashboard's numbers (Mastodon's Admin::Metrics): measures (a count per day over a range),
// dimensions (the top values of something) and retention (how many of each sign-up cohort came
// back), with the keys Mastodon accepts, computed from our own tables. Activity is recorded by ISO
// week (weekly_activity), so a day's active users are those of its week. Rows are read once and
// counted here, which reads the same on SQLite and PostgreSQL.
import { sql } from "kysely";
import { ApiError } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { languageName } from "../../domain/languages.ts";
import type { Runtime } from "../../runtime.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { isoWeek } from "../auth/authenticate.ts";
import { onDomain } from "./severances.ts";
import { requirePermission, type Staff } from "./staff.ts";

const DAY_MS = 86_400_000;

export const MEASURE_KEYS = [
  "active_users",
  "new_users",
  "interactions",
  "opened_reports",
  "resolved_reports",
  "tag_accounts",
  "tag_uses",
  "tag_servers",
  "instance_accounts",
  "instance_media_attachments",
  "instance_reports",
  "instance_statuses",
  "instance_follows",
  "instance_followers",
] as const;

export interface Range {
  start: Date;
  /** The last day, included. */
  end: Date;
}

/** Per-key parameters: `tag_uses[id]`, `instance_accounts[domain]`. */
export type KeyParams = Record<string, { id?: string; domain?: string; limit?: number } | undefined>;

/** `2026-11-01` (or a full timestamp) → that day at midnight UTC; a 400 otherwise. */
export function dayOf(text: string | undefined, name: string): Date {
  const date = text ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new ApiError(400, `param is missing or the value is empty: ${name}`);
  return new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS);
}

function daysOf(range: Range): Date[] {
  const days: Date[] = [];
  for (let t = range.start.getTime(); t <= range.end.getTime() && days.length < 1000; t += DAY_MS)
    days.push(new Date(t));
  return days;
}

const dayKey = (d: Date) => Math.floor(d.getTime() / DAY_MS);
const upTo = (range: Range) => new Date(range.end.getTime() + DAY_MS);

/** A value (an account, a status) seen at a time; measures count them, or their distinct keys, per day. */
interface Event {
  at: Date | string;
  key?: string | null;
}

type Loader = (rt: Runtime, range: Range, p: { id?: string; domain?: string }) => Promise<Event[]>;

/** Events with `column` in the range (from `from` up to the day after `to`). */
const between = (column: string, range: Range) =>
  sql<boolean>`${sql.ref(column)} >= ${range.start} and ${sql.ref(column)} < ${upTo(range)}`;

const tagId = (p: { id?: string }) => (isId(p.id) ? p.id : "0");
const domainOf = (p: { domain?: string }) => (p.domain ?? "").trim().toLowerCase();

const loaders: Record<Exclude<(typeof MEASURE_KEYS)[number], "active_users">, Loader> = {
  new_users: (rt, r) => rt.db.selectFrom("users").select("created_at as at").where(between("created_at", r)).execute(),
  interactions: async (rt, r) => {
    const local = rt.db.selectFrom("statuses").select("id").where("local", "=", true);
    const [favourites, replies] = await Promise.all([
      rt.db
        .selectFrom("favourites")
        .select("created_at as at")
        .where("status_id", "in", local)
        .where(between("created_at", r))
        .execute(),
      rt.db
        .selectFrom("statuses")
        .select("created_at as at")
        .where((eb) => eb.or([eb("reblog_of_id", "in", local), eb("in_reply_to_id", "in", local)]))
        .where(between("created_at", r))
        .execute(),
    ]);
    return [...favourites, ...replies];
  },
  opened_reports: (rt, r) =>
    rt.db.selectFrom("reports").select("created_at as at").where(between("created_at", r)).execute(),
  resolved_reports: (rt, r) =>
    rt.db
      .selectFrom("reports")
      .select("action_taken_at as at")
      .where("action_taken_at", "is not", null)
      .where(between("action_taken_at", r))
      .$narrowType<{ at: Date }>()
      .execute(),
  tag_accounts: (rt, r, p) => tagUses(rt, r, p, "s.account_id"),
  tag_uses: (rt, r, p) => tagUses(rt, r, p, "s.id"),
  tag_servers: (rt, r, p) => tagUses(rt, r, p, sql<string>`coalesce(a.domain, '')`),
  instance_accounts: (rt, r, p) =>
    rt.db
      .selectFrom("accounts")
      .select("created_at as at")
      .where(onDomain(domainOf(p)))
      .where(between("created_at", r))
      .execute(),
  instance_media_attachments: async (rt, r, p) => {
    const rows = await rt.db
      .selectFrom("media_attachments as m")
      .innerJoin("accounts as a", "a.id", "m.account_id")
      .select(["m.created_at as at", "m.file_size"])
      .where(sql<boolean>`(a.domain = ${domainOf(p)})`)
      .where(between("m.created_at", r))
      .execute();
    return rows.map((m) => ({ at: m.at, key: String(m.file_size) }));
  },
  instance_reports: (rt, r, p) =>
    rt.db
      .selectFrom("reports as rp")
      .innerJoin("accounts as a", "a.id", "rp.target_account_id")
      .select("rp.created_at as at")
      .where(sql<boolean>`(a.domain = ${domainOf(p)})`)
      .where(between("rp.created_at", r))
      .execute(),
  instance_statuses: (rt, r, p) =>
    rt.db
      .selectFrom("statuses as s")
      .innerJoin("accounts as a", "a.id", "s.account_id")
      .select("s.created_at as at")
      .where(sql<boolean>`(a.domain = ${domainOf(p)})`)
      .where(between("s.created_at", r))
      .execute(),
  instance_follows: (rt, r, p) => follows(rt, r, domainOf(p), "from"),
  instance_followers: (rt, r, p) => follows(rt, r, domainOf(p), "to"),
};

function tagUses(rt: Runtime, range: Range, p: { id?: string }, key: string | ReturnType<typeof sql<string>>) {
  return rt.db
    .selectFrom("status_tags as st")
    .innerJoin("statuses as s", "s.id", "st.status_id")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["s.created_at as at", (typeof key === "string" ? sql.ref(key) : key).as("key")])
    .where("st.tag_id", "=", tagId(p))
    .where(between("s.created_at", range))
    .execute() as Promise<Event[]>;
}

/** Follows by the domain's accounts of local ones (`from`), or by local accounts of the domain's (`to`). */
function follows(rt: Runtime, range: Range, domain: string, direction: "from" | "to") {
  const [remote, local] =
    direction === "from" ? ["f.account_id", "f.target_account_id"] : ["f.target_account_id", "f.account_id"];
  return rt.db
    .selectFrom("follows as f")
    .innerJoin("accounts as r", "r.id", sql.ref(remote) as never)
    .innerJoin("accounts as l", "l.id", sql.ref(local) as never)
    .select("f.created_at as at")
    .where(sql<boolean>`(r.domain = ${domain} and l.domain is null)`)
    .where(between("f.created_at", range))
    .execute();
}

/** The accounts active in each ISO week that the range touches. */
async function weeklyActive(rt: Runtime, days: Date[]): Promise<Map<string, Set<string>>> {
  const weeks = [...new Set(days.map(isoWeek))];
  const rows = weeks.length
    ? await rt.db.selectFrom("weekly_activity").select(["week", "account_id"]).where("week", "in", weeks).execute()
    : [];
  const out = new Map<string, Set<string>>();
  for (const r of rows) (out.get(r.week) ?? out.set(r.week, new Set()).get(r.week)!).add(r.account_id);
  return out;
}

export interface MeasureData {
  key: string;
  unit: string | null;
  total: string;
  human_value?: string;
  previous_total: string | null;
  data: { date: string; value: string }[];
}

/** A measure over a range: per day, and in total. */
async function measure(rt: Runtime, key: string, range: Range, p: { id?: string; domain?: string }) {
  const days = daysOf(range);
  if (key === "active_users") {
    const weeks = await weeklyActive(rt, days);
    const all = new Set(days.flatMap((d) => [...(weeks.get(isoWeek(d)) ?? [])]));
    return { total: all.size, data: days.map((d) => weeks.get(isoWeek(d))?.size ?? 0) };
  }
  const events = await loaders[key as keyof typeof loaders](rt, range, p);
  const bytes = key === "instance_media_attachments";
  const distinct = key === "tag_accounts" || key === "tag_servers";
  const perDay = new Map<number, number | Set<string>>();
  const everything = new Set<string>();
  let total = 0;
  for (const e of events) {
    const day = dayKey(new Date(e.at));
    if (distinct) {
      const seen = (perDay.get(day) as Set<string> | undefined) ?? new Set<string>();
      seen.add(String(e.key));
      perDay.set(day, seen);
      everything.add(String(e.key));
    } else {
      const n = bytes ? Number(e.key) : 1;
      perDay.set(day, ((perDay.get(day) as number | undefined) ?? 0) + n);
      total += n;
    }
  }
  const value = (v: number | Set<string> | undefined) => (v === undefined ? 0 : typeof v === "number" ? v : v.size);
  return { total: distinct ? everything.size : total, data: days.map((d) => value(perDay.get(dayKey(d)))) };
}

/** POST /api/v1/admin/measures: unknown keys are left out, as in Mastodon. */
export async function measures(
  rt: Runtime,
  actor: Staff,
  keys: string[],
  range: Range,
  params: KeyParams,
): Promise<MeasureData[]> {
  requirePermission(actor, "viewDashboard");
  const length = range.end.getTime() - range.start.getTime() + DAY_MS;
  const previous = { start: new Date(range.start.getTime() - length), end: new Date(range.start.getTime() - DAY_MS) };
  const out: MeasureData[] = [];
  for (const key of keys.filter((k): k is (typeof MEASURE_KEYS)[number] =>
    (MEASURE_KEYS as readonly string[]).includes(k),
  )) {
    const p = params[key] ?? {};
    const [now, before] = await Promise.all([measure(rt, key, range, p), measure(rt, key, previous, p)]);
    const bytes = key === "instance_media_attachments";
    out.push({
      key,
      unit: bytes ? "bytes" : null,
      total: String(now.total),
      ...(bytes ? { human_value: humanBytes(now.total) } : {}),
      previous_total: String(before.total),
      data: daysOf(range).map((d, i) => ({ date: d.toISOString(), value: String(now.data[i]) })),
    });
  }
  return out;
}

export function humanBytes(n: number): string {
  const units = ["Bytes", "KB", "MB", "GB", "TB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} ${units[0]}` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export interface DimensionData {
  key: string;
  data: { key: string; human_key: string; value: string; unit?: string; human_value?: string }[];
}

/** Counts by key, the `limit` largest, largest first. */
function top(rows: { key: string | null }[], limit: number, human: (key: string) => string = (k) => k) {
  const counts = new Map<string, number>();
  for (const r of rows) if (r.key) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([key, value]) => ({ key, human_key: human(key), value: String(value) }));
}

async function dimension(rt: Runtime, key: string, range: Range, p: { id?: string; domain?: string }, limit: number) {
  switch (key) {
    case "languages":
      return top(
        await rt.db
          .selectFrom("statuses")
          .select("language as key")
          .where("local", "=", true)
          .where(between("created_at", range))
          .execute(),
        limit,
        languageName,
      );
    case "sources": {
      const rows = await rt.db
        .selectFrom("users as u")
        .leftJoin("oauth_applications as a", "a.id", "u.created_by_application_id")
        .select(sql<string>`coalesce(a.name, 'Web')`.as("key"))
        .where(between("u.created_at", range))
        .execute();
      return top(rows, limit);
    }
    case "servers":
      return top(
        await rt.db
          .selectFrom("statuses as s")
          .innerJoin("accounts as a", "a.id", "s.account_id")
          .select("a.domain as key")
          .where("a.domain", "is not", null)
          .where(between("s.created_at", range))
          .execute(),
        limit,
      );
    case "space_usage":
      return spaceUsage(rt);
    case "software_versions":
      return [
        { key: "rookery", human_key: "Rookery", value: ROOKERY_VERSION },
        { key: "node", human_key: "Node.js", value: process.versions.node },
        await databaseVersion(rt),
      ];
    case "tag_servers":
    case "tag_languages": {
      const rows = await rt.db
        .selectFrom("status_tags as st")
        .innerJoin("statuses as s", "s.id", "st.status_id")
        .innerJoin("accounts as a", "a.id", "s.account_id")
        .select(
          (key === "tag_servers"
            ? sql<string>`coalesce(a.domain, ${rt.config.localDomain})`
            : sql<string>`s.language`
          ).as("key"),
        )
        .where("st.tag_id", "=", tagId(p))
        .where(between("s.created_at", range))
        .execute();
      return top(rows, limit, key === "tag_languages" ? languageName : undefined);
    }
    case "instance_accounts": {
      const rows = await rt.db
        .selectFrom("accounts as a")
        .innerJoin("account_stats as st", "st.account_id", "a.id")
        .select(["a.username", "st.followers_count"])
        .where(sql<boolean>`(a.domain = ${domainOf(p)})`)
        .orderBy("st.followers_count", "desc")
        .limit(limit)
        .execute();
      return rows.map((r) => ({ key: r.username, human_key: r.username, value: String(r.followers_count) }));
    }
    case "instance_languages":
      return top(
        await rt.db
          .selectFrom("statuses as s")
          .innerJoin("accounts as a", "a.id", "s.account_id")
          .select("s.language as key")
          .where(sql<boolean>`(a.domain = ${domainOf(p)})`)
          .where(between("s.created_at", range))
          .execute(),
        limit,
        languageName,
      );
    default:
      return null;
  }
}

async function spaceUsage(rt: Runtime) {
  const database =
    rt.dialect === "postgres"
      ? await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(rt.db)
      : await sql<{
          n: number;
        }>`select page_count * page_size as n from pragma_page_count(), pragma_page_size()`.execute(rt.db);
  const media = await rt.db
    .selectFrom("media_attachments")
    .select((eb) => eb.fn.sum<string | number>("file_size").as("n"))
    .executeTakeFirst();
  const mediaBytes = Number(media?.n ?? 0);
  const dbBytes = Number(database.rows[0]?.n ?? 0);
  return [
    {
      key: rt.dialect === "postgres" ? "postgresql" : "sqlite",
      human_key: rt.dialect === "postgres" ? "PostgreSQL" : "SQLite",
      value: String(dbBytes),
      unit: "bytes",
      human_value: humanBytes(dbBytes),
    },
    {
      key: "media",
      human_key: "Media storage",
      value: String(mediaBytes),
      unit: "bytes",
      human_value: humanBytes(mediaBytes),
    },
  ];
}

async function databaseVersion(rt: Runtime) {
  if (rt.dialect === "postgres") {
    const v = await sql<{ v: string }>`show server_version`.execute(rt.db);
    return { key: "postgresql", human_key: "PostgreSQL", value: String(Object.values(v.rows[0] ?? {})[0] ?? "") };
  }
  const v = await sql<{ v: string }>`select sqlite_version() as v`.execute(rt.db);
  return { key: "sqlite", human_key: "SQLite", value: v.rows[0]?.v ?? "" };
}

/** POST /api/v1/admin/dimensions */
export async function dimensions(
  rt: Runtime,
  actor: Staff,
  keys: string[],
  range: Range,
  params: KeyParams,
  limit: number,
): Promise<DimensionData[]> {
  requirePermission(actor, "viewDashboard");
  const out: DimensionData[] = [];
  for (const key of keys) {
    const data = await dimension(
      rt,
      key,
      range,
      params[key] ?? {},
      Math.min(Math.max(params[key]?.limit ?? limit, 1), 100),
    );
    if (data) out.push({ key, data });
  }
  return out;
}

export interface Cohort {
  period: string;
  frequency: "day" | "month";
  data: { date: string; rate: number; value: string }[];
}

/** POST /api/v1/admin/retention: of the users who signed up in each period, how many were active in each later one. */
export async function retention(rt: Runtime, actor: Staff, range: Range, frequency: string): Promise<Cohort[]> {
  requirePermission(actor, "viewDashboard");
  if (frequency !== "day" && frequency !== "month") throw new ApiError(400, `Unknown frequency: ${frequency}`);
  const periodOf = (d: Date) =>
    frequency === "day" ? new Date(dayKey(d) * DAY_MS) : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const next = (d: Date) =>
    frequency === "day"
      ? new Date(d.getTime() + DAY_MS)
      : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  const periods: Date[] = [];
  for (let p = periodOf(range.start); p <= range.end && periods.length < 400; p = next(p)) periods.push(p);
  const users = await rt.db
    .selectFrom("users")
    .select(["account_id", "created_at"])
    .where(between("created_at", range))
    .execute();
  // The weeks each period spans, and who was active in them.
  const weeksOf = (p: Date) => {
    const weeks = new Set<string>();
    for (let d = p; d < next(p); d = new Date(d.getTime() + DAY_MS)) weeks.add(isoWeek(d));
    return weeks;
  };
  const allWeeks = [...new Set(periods.flatMap((p) => [...weeksOf(p)]))];
  const activity = allWeeks.length
    ? await rt.db.selectFrom("weekly_activity").select(["week", "account_id"]).where("week", "in", allWeeks).execute()
    : [];
  return periods.map((period) => {
    const cohort = new Set(
      users.filter((u) => periodOf(new Date(u.created_at)).getTime() === period.getTime()).map((u) => u.account_id),
    );
    const data = periods
      .filter((q) => q >= period)
      .map((q) => {
        const weeks = weeksOf(q);
        const active =
          q.getTime() === period.getTime()
            ? cohort.size
            : new Set(activity.filter((a) => weeks.has(a.week) && cohort.has(a.account_id)).map((a) => a.account_id))
                .size;
        return { date: q.toISOString(), rate: cohort.size === 0 ? 0 : active / cohort.size, value: String(active) };
      });
    return { period: period.toISOString(), frequency, data };
  });
}
