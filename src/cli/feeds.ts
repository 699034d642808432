// `rookery feeds rebuild`: fills home feeds again from the statuses (after a restore, or to repair).
import { rebuildHomeFeed } from "../services/feeds/maintenance.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const feedsCommand: Command = {
  name: "feeds",
  usage: "feeds rebuild (NAME | --all)",
  summary: "Rebuild home feeds from the statuses",
  async run(args) {
    const { values, positionals } = parse(args, { all: { type: "boolean" } });
    const [action, name] = positionals;
    if (action !== "rebuild" || (!name && !values.all)) throw new UsageError("Give a username, or --all.");
    await withRuntime(async (rt) => {
      let q = rt.db
        .selectFrom("users as u")
        .innerJoin("accounts as a", "a.id", "u.account_id")
        .select(["a.id", "a.username"]);
      if (name) q = q.where("a.acct_key", "=", `${name.toLowerCase()}@`);
      const accounts = await q.orderBy("a.id").execute();
      if (accounts.length === 0) throw new Error("No such local account.");
      for (const a of accounts) {
        const count = await rebuildHomeFeed(rt, a.id);
        console.log(`@${a.username}: ${count} entries`);
      }
    });
  },
};
