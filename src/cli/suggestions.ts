// `rookery suggestions feature|unfeature ACCT`, `suggestions list`: the accounts staff suggest to
// everyone first (Mastodon's bootstrap_timeline_accounts).
import { ApiError } from "../domain/errors.ts";
import { lookupAccount } from "../services/accounts/accounts.ts";
import { featuredAccounts, setFeatured } from "../services/accounts/suggestions.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const suggestionsCommand: Command = {
  name: "suggestions",
  usage: "suggestions feature ACCT\n  rookery suggestions unfeature ACCT\n  rookery suggestions list",
  summary: "The accounts suggested to everyone first",
  async run(args) {
    const [action, acct] = parse(args, {}).positionals;
    await withRuntime(async (rt) => {
      if (action === "list") {
        const featured = await featuredAccounts(rt);
        if (featured.length === 0)
          console.log("No accounts are suggested to everyone: add one with `rookery suggestions feature ACCT`.");
        for (const a of featured) console.log(a.acct_key.replace(/@$/, ""));
        return;
      }
      if ((action !== "feature" && action !== "unfeature") || !acct)
        throw new UsageError("Unknown suggestions command.");
      const account = await lookupAccount(rt, acct).catch((e) => {
        throw e instanceof ApiError ? new Error(`No account ${acct}.`) : e;
      });
      await setFeatured(rt, account.id, action === "feature");
      console.log(action === "feature" ? `Featured ${acct}.` : `No longer featured: ${acct}.`);
    });
  },
};
