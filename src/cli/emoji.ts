// `rookery emoji add|import|list|remove`: this server's custom emojis, as `tootctl emoji`.
import { readFile } from "node:fs/promises";
import { ApiError } from "../domain/errors.ts";
import { addEmoji, importEmojis, listEmojis, removeEmoji } from "../services/emojis/custom_emojis.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

export const emojiCommand: Command = {
  name: "emoji",
  usage:
    "emoji add SHORTCODE FILE [--category C] [--unlisted] [--overwrite]\n" +
    "  rookery emoji import ARCHIVE.tar.gz [--category C] [--unlisted] [--overwrite] [--prefix P] [--suffix S]\n" +
    "  rookery emoji list\n  rookery emoji remove SHORTCODE",
  summary: "Custom emojis (PNG, GIF or WebP, at most 256 KB)",
  async run(args) {
    const { values, positionals } = parse(args, {
      category: { type: "string" },
      unlisted: { type: "boolean" },
      overwrite: { type: "boolean" },
      prefix: { type: "string" },
      suffix: { type: "string" },
    });
    const [action, first, second] = positionals;
    const options = { category: values.category, unlisted: values.unlisted, overwrite: values.overwrite };
    try {
      await withRuntime(async (rt) => {
        if (action === "add" && first && second) {
          await addEmoji(rt, { ...options, shortcode: first, image: await readFile(second) });
          console.log(`Added :${first}:.`);
        } else if (action === "import" && first) {
          const r = await importEmojis(rt, first, { ...options, prefix: values.prefix, suffix: values.suffix });
          for (const s of r.skipped) console.log(`Skipped ${s.name}: ${s.reason}`);
          console.log(`Imported ${r.added.length} emojis, skipped ${r.skipped.length}.`);
        } else if (action === "list") {
          for (const e of await listEmojis(rt)) {
            const notes = [e.category ?? "", e.visible_in_picker ? "" : "unlisted", e.disabled ? "disabled" : ""];
            console.log([`:${e.shortcode}:`, ...notes].join("\t").trimEnd());
          }
        } else if (action === "remove" && first) {
          await removeEmoji(rt, first);
          console.log(`Removed :${first}:.`);
        } else {
          throw new UsageError("Unknown emoji command.");
        }
      });
    } catch (error) {
      if (error instanceof ApiError) throw new Error(error.status === 404 ? "Not found." : error.message);
      throw error;
    }
  },
};
