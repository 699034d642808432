// `rookery rules …`, `rookery domains …` and `rookery site …`: what the server says about itself.
import { readFileSync } from "node:fs";
import { ApiError } from "../domain/errors.ts";
import { addRule, removeRule, rules } from "../services/instance/rules.ts";
import { publishTerms, setSiteText, siteText, termsVersions } from "../services/instance/texts.ts";
import { allowDomain, disallowDomain, domainAllows } from "../services/moderation/domain_allows.ts";
import { blockDomain, domainBlocks, type Severity, unblockDomain } from "../services/moderation/domain_blocks.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ApiError) throw new Error(error.status === 404 ? "Not found." : error.message);
    throw error;
  }
}

export const rulesCommand: Command = {
  name: "rules",
  usage: "rules add TEXT [--hint H]\n  rookery rules list\n  rookery rules remove ID",
  summary: "The server's rules, shown to people who sign up",
  async run(args) {
    const { values, positionals } = parse(args, { hint: { type: "string" } });
    const [action, arg] = positionals;
    await run(() =>
      withRuntime(async (rt) => {
        if (action === "add" && arg) {
          const rule = await addRule(rt, arg, values.hint);
          console.log(`Added rule ${rule.id}.`);
        } else if (action === "list") {
          for (const r of await rules(rt)) console.log(`${r.id}\t${r.text}${r.hint ? `\t(${r.hint})` : ""}`);
        } else if (action === "remove" && arg) {
          await removeRule(rt, arg);
          console.log(`Removed rule ${arg}.`);
        } else {
          throw new UsageError("Unknown rules command.");
        }
      }),
    );
  },
};

const SEVERITIES: Severity[] = ["silence", "suspend", "noop"];

export const domainsCommand: Command = {
  name: "domains",
  usage:
    "domains block DOMAIN [--severity silence|suspend|noop] [--reject-media] [--obfuscate] [--public-comment C]\n" +
    "  rookery domains unblock DOMAIN\n  rookery domains list\n" +
    "  rookery domains allow DOMAIN | disallow DOMAIN | allowed   (limited federation mode)",
  summary: "Block or limit other servers, or allow them in limited federation mode",
  async run(args) {
    const { values, positionals } = parse(args, {
      severity: { type: "string" },
      "reject-media": { type: "boolean" },
      obfuscate: { type: "boolean" },
      "public-comment": { type: "string" },
    });
    const [action, domain] = positionals;
    const severity = (values.severity ?? "suspend") as Severity;
    if (!SEVERITIES.includes(severity)) throw new UsageError(`--severity must be one of ${SEVERITIES.join(", ")}`);
    await run(() =>
      withRuntime(async (rt) => {
        if (action === "block" && domain) {
          await blockDomain(rt, {
            domain,
            severity,
            rejectMedia: values["reject-media"],
            obfuscate: values.obfuscate,
            publicComment: values["public-comment"],
          });
          console.log(`Blocked ${domain} (${severity}).`);
        } else if (action === "unblock" && domain) {
          await unblockDomain(rt, domain);
          console.log(`Unblocked ${domain}.`);
        } else if (action === "list") {
          for (const b of await domainBlocks(rt)) {
            console.log(
              `${b.domain}\t${b.severity}${b.reject_media ? ", reject media" : ""}${b.public_comment ? `\t${b.public_comment}` : ""}`,
            );
          }
        } else if (action === "allow" && domain) {
          const allowed = await allowDomain(rt, domain);
          console.log(`Allowed ${allowed.domain}.`);
        } else if (action === "disallow" && domain) {
          await disallowDomain(rt, domain);
          console.log(`Disallowed ${domain}.`);
        } else if (action === "allowed") {
          for (const a of await domainAllows(rt)) console.log(a.domain);
        } else {
          throw new UsageError("Unknown domains command.");
        }
      }),
    );
  },
};

const KEYS = ["extended_description", "privacy_policy", "terms_of_service"] as const;

export const siteCommand: Command = {
  name: "site",
  usage:
    "site set extended_description|privacy_policy (TEXT | --file F)\n" +
    "  rookery site set terms_of_service (TEXT | --file F) --effective-date YYYY-MM-DD\n" +
    "  rookery site get KEY",
  summary: "The about page, privacy policy and terms of service (Markdown)",
  async run(args) {
    const { values, positionals } = parse(args, { file: { type: "string" }, "effective-date": { type: "string" } });
    const [action, key, inline] = positionals;
    if (!KEYS.includes(key as (typeof KEYS)[number])) throw new UsageError(`KEY must be one of ${KEYS.join(", ")}`);
    await run(() =>
      withRuntime(async (rt) => {
        if (action === "set") {
          const text = values.file ? readFileSync(values.file, "utf8") : inline;
          if (text === undefined) throw new UsageError("Give the text, or --file.");
          if (key === "terms_of_service") {
            if (!values["effective-date"])
              throw new UsageError("--effective-date is required for the terms of service.");
            await publishTerms(rt, text, values["effective-date"]);
          } else {
            await setSiteText(rt, key as "extended_description" | "privacy_policy", text);
          }
          console.log(`Updated ${key}.`);
        } else if (action === "get") {
          if (key === "terms_of_service") {
            for (const v of await termsVersions(rt)) console.log(`== effective ${v.effective_date}\n${v.text}`);
          } else {
            console.log((await siteText(rt, key as "extended_description" | "privacy_policy"))?.text ?? "(not set)");
          }
        } else {
          throw new UsageError("Unknown site command.");
        }
      }),
    );
  },
};
