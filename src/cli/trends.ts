// `rookery trends allow|deny TAG`, `trends review`: which hashtags may trend publicly.
import { reviewTag, tagsToReview } from "../services/trends/tags.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const trendsCommand: Command = {
  name: "trends",
  usage: "trends allow TAG\n  rookery trends deny TAG\n  rookery trends review",
  summary: "Review the hashtags that may trend",
  async run(args) {
    const [action, tag] = parse(args, {}).positionals;
    await withRuntime(async (rt) => {
      if (action === "review") {
        const waiting = await tagsToReview(rt);
        if (waiting.length === 0) console.log("No hashtag waits for review.");
        for (const t of waiting)
          console.log(`#${t.tag.display_name}\t${t.accounts} accounts\tscore ${t.score.toFixed(2)}`);
      } else if ((action === "allow" || action === "deny") && tag) {
        const reviewed = await reviewTag(rt, tag, action === "allow").catch(() => {
          throw new Error(`Not a valid hashtag: ${tag}`);
        });
        console.log(`#${reviewed.display_name} ${action === "allow" ? "may trend" : "will not trend"}.`);
      } else {
        throw new UsageError("Unknown trends command.");
      }
    });
  },
};
