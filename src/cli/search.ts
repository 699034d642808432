// `rookery search reindex`: rebuilds the full-text index of statuses (after a restore, or when it
// is suspected to be out of step). Statuses posted meanwhile are indexed by their own transaction.
import { reindexStatuses } from "../services/search/status_index.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const searchCommand: Command = {
  name: "search",
  usage: "search reindex",
  summary: "Rebuild the full-text index of statuses",
  async run(args) {
    const { positionals } = parse(args, {});
    if (positionals[0] !== "reindex") throw new UsageError("Unknown search command");
    await withRuntime(async (rt) => {
      const count = await reindexStatuses(rt.db, rt.dialect);
      console.log(`Indexed ${count} statuses.`);
    });
  },
};
