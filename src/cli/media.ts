// `rookery media remove-orphans`, `rookery media remove` and `rookery media usage`: media storage
// for operators.
import { mediaStorage } from "../media/storage.ts";
import { mediaUsage, ORPHAN_AGE_MS, removeOrphans } from "../services/media/cleanup.ts";
import { removeCachedMedia } from "../services/media/remote_retention.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";
import { progressBar } from "./progress.ts";

const size = (bytes: number) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GiB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MiB`
      : `${(bytes / 1024).toFixed(1)} KiB`;

export const mediaCommand: Command = {
  name: "media",
  usage: "media (remove-orphans [--older-than HOURS] | remove [--days N] [--prune-profiles] | usage)",
  summary: "Remove media no status uses or other servers' cached media, or show how much storage media take",
  async run(args) {
    const { values, positionals } = parse(args, {
      "older-than": { type: "string" },
      days: { type: "string" },
      "prune-profiles": { type: "boolean" },
    });
    const action = positionals[0];
    if (action === "remove-orphans") {
      const hours = values["older-than"] === undefined ? ORPHAN_AGE_MS / 3600_000 : Number(values["older-than"]);
      if (!Number.isFinite(hours) || hours < 0) throw new UsageError("--older-than takes a number of hours.");
      const removed = await withRuntime((rt) =>
        removeOrphans(rt, { olderThanMs: hours * 3600_000, progress: progressBar("Removing") }),
      );
      console.log(`Removed ${removed} media attachment${removed === 1 ? "" : "s"} older than ${hours} hours.`);
    } else if (action === "remove") {
      // As `tootctl media remove`: a week unless told.
      const days = values.days === undefined ? 7 : Number(values.days);
      if (!Number.isInteger(days) || days < 0) throw new UsageError("--days takes a whole number of days.");
      const removed = await withRuntime((rt) =>
        removeCachedMedia(rt, { olderThanDays: days, pruneProfiles: values["prune-profiles"] === true }),
      );
      const profiles = values["prune-profiles"] ? ` and the images of ${removed.profiles} remote accounts` : "";
      console.log(
        `Removed ${removed.files} file${removed.files === 1 ? "" : "s"} (${size(removed.bytes)}) of ${removed.attachments} remote media attachment${removed.attachments === 1 ? "" : "s"}${profiles}, older than ${days} days.`,
      );
    } else if (action === "usage") {
      await withRuntime(async (rt) => {
        const rows = await mediaUsage(rt.db);
        const storage = mediaStorage(rt.config);
        console.log(`Storage: ${storage.kind === "s3" ? `S3 bucket ${rt.config.media.s3!.bucket}` : "local disk"}`);
        for (const r of rows) console.log(`${r.type}\t${r.state}\t${r.count}\t${size(r.bytes)}`);
        const total = rows.reduce((sum, r) => sum + r.bytes, 0);
        console.log(`total\t\t${rows.reduce((sum, r) => sum + r.count, 0)}\t${size(total)}`);
      });
    } else {
      throw new UsageError("Unknown media command: use remove-orphans, remove or usage.");
    }
  },
};
