// Environment → typed configuration. Every value is validated at start; a wrong one stops the
// start with one line naming the variable.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import { threadsThatFit } from "./memory.ts";

export type RegistrationsMode = "open" | "approved" | "none";

export interface Config {
  localDomain: string;
  webDomain: string;
  /** `https://web.domain` (or http for loopback domains): the origin every URL is built from. */
  origin: string;
  bind: string;
  port: number;
  /** Threads answering HTTP in the one process (each a full copy of the app, sharing the port). */
  webThreads: number;
  /** PostgreSQL connections per thread. */
  dbPool: number;
  memory: MemorySettings;
  dataDir: string;
  databaseUrl: string;
  redisUrl: string | null;
  secretKeyBase: string;
  streamingUrl: string | null;
  registrations: { mode: RegistrationsMode; reasonRequired: boolean; minAge: number | null; message: string | null };
  /** Email providers sign-ups may (not) use. */
  emailDomains: { deny: string[]; allow: string[] };
  site: {
    title: string;
    description: string;
    contactEmail: string;
    contactUsername: string | null;
    languages: string[];
  };
  publicPreview: boolean;
  authorizedFetch: boolean;
  /** Federate only with the domains `rookery domains allow` names; the API only for signed-in users. */
  limitedFederation: boolean;
  /** Who may read /api/v1/instance/domain_blocks: nobody, signed-in users, or everyone. */
  showDomainBlocks: "disabled" | "users" | "all";
  sourceUrl: string;
  limits: Limits;
  rateLimits: RateLimits;
  smtp: { url: string; from: string } | null;
  media: MediaConfig;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Whether outgoing requests may use plain http and reach private, loopback and link-local addresses. */
  allowPrivateAddresses: boolean;
  /** How long a delivery to another server may wait for its answer. */
  deliveryTimeoutMs: number;
  /** Prometheus metrics on a listener of their own (METRICS_PORT), or null: off. */
  metrics: MetricsConfig | null;
  /** OpenTelemetry traces sent to a collector (OTEL_EXPORTER_OTLP_ENDPOINT), or null: off. */
  tracing: TracingConfig | null;
}

export interface TracingConfig {
  /** Where spans are posted (OTLP/HTTP): the endpoint with `/v1/traces`. */
  tracesUrl: string;
  serviceName: string;
}

export interface MetricsConfig {
  port: number;
  bind: string;
  /** A bearer token scrapers must send, when set. */
  token: string | null;
}

/** What Rookery's process may hold: see src/memory.ts for how the budget is shared. */
export interface MemorySettings {
  /** MEMORY_LIMIT in MB: the whole process, every thread included. */
  limitMb: number;
  /** The share of a thread's heap limit past which it answers 503 rather than take more work. */
  shedAt: number;
  /** Rendered statuses and accounts kept per thread (each about 1–2 KB). */
  renderCacheEntries: number;
  /** SQLite's page cache per connection, and its memory map, in MB. */
  sqliteCacheMb: number;
  sqliteMmapMb: number;
  /** Prepared statements kept per SQLite connection. */
  sqliteStatements: number;
}

export interface Limits {
  statusChars: number;
  charsPerUrl: number;
  mediaAttachments: number;
  pollOptions: number;
  pollOptionChars: number;
  pollMinExpiration: number;
  pollMaxExpiration: number;
  imageSize: number;
  videoSize: number;
  imageMatrix: number;
  videoMatrix: number;
  videoFrameRate: number;
  descriptionChars: number;
  bioChars: number;
  displayNameChars: number;
  profileFields: number;
  profileFieldChars: number;
  pinnedStatuses: number;
  featuredTags: number;
}

/** The API's request limits (Mastodon's throttles); each counts requests per fixed window. */
export interface RateLimits {
  enabled: boolean;
  /** Whether requests from this machine (127.0.0.1, ::1) skip the limits, as Mastodon lets them. */
  exemptLoopback: boolean;
  /** Per token, per account (all its tokens) and per address (requests without a user), every 5 minutes. */
  perToken: number;
  perAccount: number;
  perAddress: number;
  /** Requests for older or newer pages (`max_id`, `min_id`, `since_id`, `page`), every 15 minutes. */
  paging: number;
  /** Media uploads and status deletions (with unreblogs) per account, every 30 minutes. */
  media: number;
  deletes: number;
}

export interface MediaConfig {
  /** Object storage instead of DATA_DIR/media, when S3_ENABLED. */
  s3: S3Config | null;
  /** ffmpeg and ffprobe as configured; null means "look on PATH, then in the npm package". */
  ffmpegPath: string | null;
  ffprobePath: string | null;
  /** Video and audio transcodes one process runs at a time. */
  transcodes: number;
  /** Days other servers' attachments stay in storage (then fetched again when asked for); null keeps them. */
  cacheRetentionDays: number | null;
}

export interface S3Config {
  bucket: string;
  /** An S3-compatible server (MinIO, Garage, R2…), addressed path-style; null means AWS. */
  endpoint: string | null;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A canned ACL sent with each upload (`public-read`), when the bucket needs one. */
  permission: string | null;
  /** The public base URL of the files (a CDN or alias host); null means the bucket's own URL. */
  publicUrl: string | null;
}

export class ConfigError extends Error {}

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
const bool = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"]))
  .transform((v) => ["true", "1", "yes", "on"].includes(v));
const domain = z
  .string()
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, "must be a host name, optionally with :port (no scheme, no path)");

/** `a.example|b.example` (Mastodon's separator) or comma-separated. */
const domainList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(/[|,]/)
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9.-]+$/, "must list domain names separated by | or ,")));

// Each variable with its parser and default. Undefined defaults are derived below.
const schema = {
  LOCAL_DOMAIN: domain.optional(),
  WEB_DOMAIN: domain.optional(),
  LOCAL_HTTPS: bool.optional(),
  BIND: z.string().min(1).default("127.0.0.1"),
  PORT: int(0, 65535).default(3000),
  WEB_THREADS: int(1, 64).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DB_POOL: int(1, 100).default(4),
  MEMORY_LIMIT: int(128, 1_048_576).default(512),
  RENDER_CACHE_ENTRIES: int(0, 10_000_000).default(5_000),
  MEMORY_SHED_AT: z.coerce.number().gt(0).lte(1).default(0.9),
  SQLITE_CACHE_MB: int(1, 65_536).default(8),
  SQLITE_MMAP_MB: int(0, 1_048_576).default(0),
  SQLITE_STATEMENTS: int(1, 100_000).default(200),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:|file:|:memory:$)/, "must start with postgres://, sqlite: or file:")
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must start with redis:// or rediss://")
    .optional(),
  SECRET_KEY_BASE: z.string().min(32, "must be at least 32 characters").optional(),
  STREAMING_URL: z
    .string()
    .regex(/^wss?:\/\//, "must start with wss:// or ws://")
    .optional(),
  REGISTRATIONS_MODE: z.enum(["open", "approved", "none"]).default("approved"),
  REGISTRATIONS_REASON_REQUIRED: bool.default(true),
  REGISTRATIONS_MIN_AGE: int(1, 100).optional(),
  REGISTRATIONS_MESSAGE: z.string().optional(),
  EMAIL_DOMAIN_DENYLIST: domainList,
  EMAIL_DOMAIN_ALLOWLIST: domainList,
  SITE_TITLE: z.string().min(1).optional(),
  SITE_DESCRIPTION: z.string().default(""),
  SITE_CONTACT_EMAIL: z.string().default(""),
  SITE_CONTACT_USERNAME: z.string().optional(),
  SITE_LANGUAGES: z.string().default("en"),
  PUBLIC_PREVIEW: bool.default(true),
  AUTHORIZED_FETCH: bool.default(false),
  LIMITED_FEDERATION_MODE: bool.default(false),
  SHOW_DOMAIN_BLOCKS: z.enum(["disabled", "users", "all"]).default("disabled"),
  SOURCE_URL: z.url({ error: "must be a URL" }).default("https://github.com/rookery-social/rookery"),
  MAX_STATUS_CHARS: int(1).default(500),
  MAX_MEDIA_ATTACHMENTS: int(1, 20).default(4),
  MAX_POLL_OPTIONS: int(2, 100).default(4),
  MAX_POLL_OPTION_CHARS: int(1).default(50),
  MIN_POLL_EXPIRATION: int(1).default(300),
  MAX_POLL_EXPIRATION: int(1).default(2_629_746),
  MAX_IMAGE_SIZE: int(1).default(16 * 1024 * 1024),
  MAX_VIDEO_SIZE: int(1).default(99 * 1024 * 1024),
  MAX_IMAGE_PIXELS: int(1).default(33_177_600),
  MAX_VIDEO_PIXELS: int(1).default(8_294_400),
  MAX_BIO_CHARS: int(1).default(500),
  MAX_PROFILE_FIELDS: int(0, 50).default(4),
  RATE_LIMITS: bool.default(true),
  RATE_LIMIT_LOOPBACK: z.enum(["counted", "exempt"]).default("counted"),
  RATE_LIMIT_PER_TOKEN: int(1).default(300),
  RATE_LIMIT_PER_ACCOUNT: int(1).default(1500),
  RATE_LIMIT_PER_ADDRESS: int(1).default(300),
  RATE_LIMIT_PAGING: int(1).default(300),
  RATE_LIMIT_MEDIA: int(1).default(30),
  RATE_LIMIT_DELETES: int(1).default(30),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .optional(),
  SMTP_FROM: z.string().optional(),
  S3_ENABLED: bool.default(false),
  S3_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT: z.url({ error: "must be a URL" }).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  S3_PERMISSION: z.string().optional(),
  S3_ALIAS_HOST: z.string().min(1).optional(),
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  MEDIA_TRANSCODES: int(1, 16).default(1),
  MEDIA_CACHE_RETENTION_DAYS: int(1, 36_500).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  ALLOW_PRIVATE_ADDRESSES: bool.default(false),
  DELIVERY_TIMEOUT_SECONDS: int(1, 600).default(15),
  METRICS_PORT: int(0, 65535).optional(),
  METRICS_BIND: z.string().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\//, "must be an http:// or https:// URL")
    .pipe(z.url({ error: "must be a URL" }))
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default("rookery"),
} as const;

type Env = Record<string, string | undefined>;

/** Reads `.env` (when present) into process.env without overriding variables already set. */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

export function loadConfig(env: Env = process.env): Config {
  const v: Record<string, unknown> = {};
  for (const [name, parser] of Object.entries(schema)) {
    const raw = env[name];
    const result = parser.safeParse(raw === "" ? undefined : raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new ConfigError(`${name}=${JSON.stringify(raw)}: ${issue?.message ?? "invalid value"}`);
    }
    v[name] = result.data;
  }
  const port = v.PORT as number;
  const localDomain = ((v.LOCAL_DOMAIN as string | undefined) ?? `127.0.0.1:${port}`).toLowerCase();
  const webDomain = ((v.WEB_DOMAIN as string | undefined) ?? localDomain).toLowerCase();
  const https = (v.LOCAL_HTTPS as boolean | undefined) ?? !isLoopbackHost(webDomain);
  const dataDir = resolve(v.DATA_DIR as string);
  const databaseUrl = (v.DATABASE_URL as string | undefined) ?? `sqlite:${resolve(dataDir, "rookery.sqlite")}`;
  if ((v.MIN_POLL_EXPIRATION as number) > (v.MAX_POLL_EXPIRATION as number)) {
    throw new ConfigError("MIN_POLL_EXPIRATION must not be larger than MAX_POLL_EXPIRATION");
  }
  if (v.SMTP_URL && !v.SMTP_FROM) throw new ConfigError("SMTP_FROM is required when SMTP_URL is set");
  const metricsPort = v.METRICS_PORT as number | undefined;
  const metricsBind = v.METRICS_BIND as string;
  if (metricsPort !== undefined && !v.METRICS_TOKEN && !isLoopbackHost(metricsBind) && metricsBind !== "::1") {
    throw new ConfigError("METRICS_BIND other than this machine (127.0.0.1, ::1) needs METRICS_TOKEN");
  }
  if (v.S3_ENABLED && !(v.S3_BUCKET && v.AWS_ACCESS_KEY_ID && v.AWS_SECRET_ACCESS_KEY)) {
    throw new ConfigError("S3_ENABLED needs S3_BUCKET, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  }

  return {
    localDomain,
    webDomain,
    origin: `${https ? "https" : "http"}://${webDomain}`,
    bind: v.BIND as string,
    port,
    webThreads: (v.WEB_THREADS as number | undefined) ?? defaultWebThreads(databaseUrl, v.MEMORY_LIMIT as number),
    dataDir,
    databaseUrl,
    dbPool: v.DB_POOL as number,
    memory: {
      limitMb: v.MEMORY_LIMIT as number,
      renderCacheEntries: v.RENDER_CACHE_ENTRIES as number,
      shedAt: v.MEMORY_SHED_AT as number,
      sqliteCacheMb: v.SQLITE_CACHE_MB as number,
      sqliteMmapMb: v.SQLITE_MMAP_MB as number,
      sqliteStatements: v.SQLITE_STATEMENTS as number,
    },
    redisUrl: (v.REDIS_URL as string | undefined) ?? null,
    secretKeyBase: (v.SECRET_KEY_BASE as string | undefined) ?? "",
    streamingUrl: (v.STREAMING_URL as string | undefined) ?? null,
    registrations: {
      mode: v.REGISTRATIONS_MODE as RegistrationsMode,
      reasonRequired: v.REGISTRATIONS_REASON_REQUIRED as boolean,
      minAge: (v.REGISTRATIONS_MIN_AGE as number | undefined) ?? null,
      message: (v.REGISTRATIONS_MESSAGE as string | undefined) ?? null,
    },
    emailDomains: { deny: v.EMAIL_DOMAIN_DENYLIST as string[], allow: v.EMAIL_DOMAIN_ALLOWLIST as string[] },
    site: {
      title: (v.SITE_TITLE as string | undefined) ?? localDomain,
      description: v.SITE_DESCRIPTION as string,
      contactEmail: v.SITE_CONTACT_EMAIL as string,
      contactUsername: (v.SITE_CONTACT_USERNAME as string | undefined) ?? null,
      languages: (v.SITE_LANGUAGES as string)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    },
    publicPreview: v.PUBLIC_PREVIEW as boolean,
    authorizedFetch: v.AUTHORIZED_FETCH as boolean,
    limitedFederation: v.LIMITED_FEDERATION_MODE as boolean,
    showDomainBlocks: v.SHOW_DOMAIN_BLOCKS as Config["showDomainBlocks"],
    sourceUrl: v.SOURCE_URL as string,
    limits: {
      statusChars: v.MAX_STATUS_CHARS as number,
      charsPerUrl: 23,
      mediaAttachments: v.MAX_MEDIA_ATTACHMENTS as number,
      pollOptions: v.MAX_POLL_OPTIONS as number,
      pollOptionChars: v.MAX_POLL_OPTION_CHARS as number,
      pollMinExpiration: v.MIN_POLL_EXPIRATION as number,
      pollMaxExpiration: v.MAX_POLL_EXPIRATION as number,
      imageSize: v.MAX_IMAGE_SIZE as number,
      videoSize: v.MAX_VIDEO_SIZE as number,
      imageMatrix: v.MAX_IMAGE_PIXELS as number,
      videoMatrix: v.MAX_VIDEO_PIXELS as number,
      videoFrameRate: 120,
      descriptionChars: 1500,
      bioChars: v.MAX_BIO_CHARS as number,
      displayNameChars: 30,
      profileFields: v.MAX_PROFILE_FIELDS as number,
      profileFieldChars: 255,
      pinnedStatuses: 5,
      featuredTags: 10,
    },
    rateLimits: {
      enabled: v.RATE_LIMITS as boolean,
      exemptLoopback: v.RATE_LIMIT_LOOPBACK === "exempt",
      perToken: v.RATE_LIMIT_PER_TOKEN as number,
      perAccount: v.RATE_LIMIT_PER_ACCOUNT as number,
      perAddress: v.RATE_LIMIT_PER_ADDRESS as number,
      paging: v.RATE_LIMIT_PAGING as number,
      media: v.RATE_LIMIT_MEDIA as number,
      deletes: v.RATE_LIMIT_DELETES as number,
    },
    smtp: v.SMTP_URL ? { url: v.SMTP_URL as string, from: v.SMTP_FROM as string } : null,
    media: {
      s3: v.S3_ENABLED ? s3Config(v) : null,
      ffmpegPath: (v.FFMPEG_PATH as string | undefined) ?? null,
      ffprobePath: (v.FFPROBE_PATH as string | undefined) ?? null,
      transcodes: v.MEDIA_TRANSCODES as number,
      cacheRetentionDays: (v.MEDIA_CACHE_RETENTION_DAYS as number | undefined) ?? null,
    },
    logLevel: v.LOG_LEVEL as Config["logLevel"],
    allowPrivateAddresses: v.ALLOW_PRIVATE_ADDRESSES as boolean,
    deliveryTimeoutMs: (v.DELIVERY_TIMEOUT_SECONDS as number) * 1000,
    metrics:
      metricsPort === undefined
        ? null
        : { port: metricsPort, bind: metricsBind, token: (v.METRICS_TOKEN as string | undefined) ?? null },
    // As OpenTelemetry's own SDKs read it: the signal's path is added to the base endpoint.
    tracing: v.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          tracesUrl: `${(v.OTEL_EXPORTER_OTLP_ENDPOINT as string).replace(/\/+$/, "")}/v1/traces`,
          serviceName: v.OTEL_SERVICE_NAME as string,
        }
      : null,
  };
}

function s3Config(v: Record<string, unknown>): S3Config {
  const alias = v.S3_ALIAS_HOST as string | undefined;
  return {
    bucket: v.S3_BUCKET as string,
    endpoint: ((v.S3_ENDPOINT as string | undefined) ?? "").replace(/\/+$/, "") || null,
    region: v.S3_REGION as string,
    accessKeyId: v.AWS_ACCESS_KEY_ID as string,
    secretAccessKey: v.AWS_SECRET_ACCESS_KEY as string,
    permission: (v.S3_PERMISSION as string | undefined) ?? null,
    // Mastodon's S3_ALIAS_HOST is a host name (served over https); a full URL is taken as it is.
    publicUrl: alias ? (/^https?:\/\//.test(alias) ? alias : `https://${alias}`).replace(/\/+$/, "") : null,
  };
}

/** `localhost`, a `.localhost` name or 127.0.0.1, with or without a port. */
export function isLoopbackHost(hostWithPort: string): boolean {
  const host = hostWithPort.replace(/:\d+$/, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "127.0.0.1";
}

/**
 * A thread per core, at most 4, leaving one core to a PostgreSQL server on the same machine: its
 * backends need the CPU too. On two cores, a second thread then added no throughput to the home
 * timeline, and the kernel's uneven split of connections between the threads made the slowest
 * responses slower (p99 45–49 ms against 33–38 ms with one thread). And no more threads than
 * MEMORY_LIMIT holds (src/memory.ts).
 */
function defaultWebThreads(databaseUrl: string, memoryLimitMb: number): number {
  const cores = availableParallelism();
  const byCores = Math.min(4, postgresOnThisMachine(databaseUrl) ? cores - 1 : cores);
  return Math.max(1, Math.min(byCores, threadsThatFit(memoryLimitMb)));
}

/** Whether DATABASE_URL names a PostgreSQL server on this machine: through a Unix socket or loopback. */
function postgresOnThisMachine(databaseUrl: string): boolean {
  if (!/^postgres(ql)?:/.test(databaseUrl)) return false;
  const url = new URL(databaseUrl);
  const host = decodeURIComponent(url.searchParams.get("host") ?? url.hostname);
  return host === "" || host.startsWith("/") || isLoopbackHost(host) || host === "[::1]";
}

/**
 * SECRET_KEY_BASE signs sessions and CSRF tokens. When it is not configured, one is generated on
 * first start and kept under the data directory so that restarts don't sign everyone out.
 */
export function ensureSecret(config: Config): Config {
  if (config.secretKeyBase) return config;
  const file = resolve(config.dataDir, "secret_key_base");
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(64).toString("hex"), { mode: 0o600 });
  }
  return { ...config, secretKeyBase: readFileSync(file, "utf8").trim() };
}
